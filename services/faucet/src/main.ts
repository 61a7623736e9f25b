import { Redis } from 'ioredis';
import { createChainDriver } from '../../../lib/chain/from-env.js';
import { lightningClientFromEnv } from '../../../lib/lightning/implementations.js';
import { loggerFromEnv, runService } from '../../../lib/http/service.js';
import { RlnClient } from '../../../lib/rln/client.js';
import { buildApp } from './app.js';
import { AssetFaucet } from './asset-faucet.js';
import { FaucetAssetNode } from './asset-node.js';
import { configFromEnv } from './config.js';
import { Cooldowns } from './cooldown.js';
import { Faucet } from './faucet.js';
import { DirectMiner, LabQueueMiner, type Miner } from './miner.js';
import { NodeWallet } from './wallet.js';

const config = configFromEnv();
const driver = createChainDriver(config.chain);
const wallet = new NodeWallet(await lightningClientFromEnv());
// Without an offline queue a claim answers 503 at once while Redis is down (ioredis reconnects
// in the background); the first connection is awaited so that claims right after start-up work.
const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
redis.on('error', () => undefined);
await redis.connect().catch((error: Error) => {
  throw new Error(`cannot reach Redis at ${config.redisUrl} (REDIS_URL): ${error.message}`);
});
const miner: Miner = config.mineUrl
  ? new LabQueueMiner({ mineUrl: config.mineUrl }, driver)
  : new DirectMiner(driver, async () => config.mineAddress ?? wallet.ownAddress());
const faucet = new Faucet({
  wallet,
  miner,
  cooldowns: new Cooldowns(redis, config.cooldownSeconds),
  driver,
  claimSat: config.claimSat,
  adapterUrl: config.adapterPublicUrl,
});
const assetFaucet = config.asset
  ? new AssetFaucet({
      node: new FaucetAssetNode(new RlnClient(config.asset.nodeUrl)),
      offer: config.asset,
      miner,
      driver,
      cooldowns: new Cooldowns(redis, config.cooldownSeconds, 'faucet:cooldown:asset', 'recipient'),
    })
  : undefined;
const app = await buildApp({ faucet, assetFaucet, logger: loggerFromEnv(process.env), trustProxy: config.trustProxy });
app.addHook('onClose', async () => {
  redis.disconnect();
  driver.close();
});
await runService(app, config.host, config.port);
