import { mkdirSync } from 'node:fs';
import { loggerFromEnv, runService } from '../../../lib/http/service.js';
import { buildApp } from './app.js';
import { configFromEnv } from './config.js';
import { RgbNode } from './node/rgb-node.js';

const config = configFromEnv();
mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
const node = new RgbNode(config);
const app = await buildApp({ node, logger: loggerFromEnv(process.env) });
app.addHook('onClose', () => node.shutdown());
await runService(app, config.host, config.port);
app.log.info({ dataDir: config.dataDir, state: node.status }, 'rgb node listening');
