import { Redis } from 'ioredis';
import { createChainDriver } from '../../../control-plane/src/drivers/chain/from-env.js';
import { connectLnd, lndCredentialsFromEnv } from '../../../control-plane/src/drivers/lnd.js';
import { loggerFromEnv, runService } from '../../chain-adapter/src/http/service.js';
import { buildApp } from './app.js';
import { configFromEnv } from './config.js';
import { Cooldowns } from './cooldown.js';
import { Faucet } from './faucet.js';
import { DirectMiner, LabQueueMiner, type Miner } from './miner.js';
import { LndWallet } from './wallet.js';

const config = configFromEnv();
const driver = createChainDriver(config.chain);
const wallet = new LndWallet(connectLnd(await lndCredentialsFromEnv()));
// Fail fast while Redis is down instead of queueing claims: a claim then answers 503 at once.
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
redis.on('error', () => undefined);
const miner: Miner = config.mineUrl
  ? new LabQueueMiner({ mineUrl: config.mineUrl }, driver)
  : new DirectMiner(driver, async () => config.mineAddress ?? wallet.ownAddress());
const faucet = new Faucet({
  wallet,
  miner,
  cooldowns: new Cooldowns(redis, config.cooldownSeconds),
  driver,
  claimSat: config.claimSat,
  cooldownSeconds: config.cooldownSeconds,
  adapterUrl: config.adapterPublicUrl,
});
const app = await buildApp({ faucet, logger: loggerFromEnv(process.env), trustProxy: config.trustProxy });
app.addHook('onClose', async () => {
  redis.disconnect();
  driver.close();
});
await runService(app, config.host, config.port);
