import { createChainDriver } from '../../../lib/chain/from-env.js';
import { buildApp } from './app.js';
import { configFromEnv } from './config.js';
import { loggerFromEnv, runService } from '../../../lib/http/service.js';
import { ElectrumIndexer } from './indexer.js';

const config = configFromEnv();
const driver = createChainDriver(config.chain);
const indexer = new ElectrumIndexer(config.indexer);
const app = await buildApp({
  network: config.network,
  driver,
  indexer,
  fees: config.fees,
  logger: loggerFromEnv(process.env),
});
app.addHook('onClose', async () => {
  indexer.close();
  driver.close();
});
await runService(app, config.host, config.port);
