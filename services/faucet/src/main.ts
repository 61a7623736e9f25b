import { createChainDriver } from '../../../lib/chain/from-env.js';
import { lightningClientFromEnv } from '../../../lib/lightning/implementations.js';
import { loggerFromEnv, runService } from '../../../lib/http/service.js';
import { openRedis, redisReady } from '../../../lib/redis.js';
import { RlnClient } from '../../../lib/rln/client.js';
import { buildApp } from './app.js';
import { AssetFaucet } from './asset-faucet.js';
import { FaucetAssetNode } from './asset-node.js';
import { configFromEnv } from './config.js';
import { Cooldowns } from './cooldown.js';
import { Faucet } from './faucet.js';
import { DirectMiner, LabQueueMiner, type Miner } from './miner.js';
import { NodeWallet } from './wallet.js';

/** How long the start waits for Redis's first answer before serving without it. */
const REDIS_FIRST_CONNECT_MS = 10_000;

const config = configFromEnv();
const driver = createChainDriver(config.chain);
const wallet = new NodeWallet(await lightningClientFromEnv());
// A claim answers 503 at once while Redis is away, and the faucet starts while Redis is still
// coming (a cluster's Service can route to it a moment after its pod is ready); the first
// connection is waited for a while so that claims right after start-up work.
const redis = openRedis(config.redisUrl);
if (!(await redisReady(redis, REDIS_FIRST_CONNECT_MS)))
  console.error(`Redis at ${config.redisUrl} (REDIS_URL) does not answer yet; claims answer 503 until it does`);
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
