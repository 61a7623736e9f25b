import { loggerFromEnv, runService } from '../../../lib/http/service.js';
import { buildApp } from './app.js';
import { configFromEnv } from './config.js';
import { ProxyStore } from './store.js';

const config = configFromEnv();
const store = await ProxyStore.open(config.dataDir);
const app = await buildApp({ store, maxUploadBytes: config.maxUploadBytes, logger: loggerFromEnv(process.env) });
await runService(app, config.host, config.port);
