// Entry point: `tsx services/wallet-server/src/main.ts` (config from env, see ../README.md).
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { lightningClientFromEnv } from '../../../lib/lightning/implementations.js';
import { lightningPlugin, loadLightningConfig } from './lightning/index.js';

const config = loadConfig();
const lightning = loadLightningConfig();
const app = await buildApp(config, { plugins: [lightningPlugin(lightning, await lightningClientFromEnv())] });
if (!config.databaseUrl) {
  app.log.warn(
    config.pgliteDataDir
      ? `DATABASE_URL not set: embedded PGlite in ${config.pgliteDataDir}`
      : 'DATABASE_URL not set: embedded PGlite in memory (data is lost on exit; set PGLITE_DATA_DIR to keep it)',
  );
}

let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

await app.listen({ host: config.host, port: config.port });
