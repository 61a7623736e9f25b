import { pathToFileURL } from 'node:url';
import { configFromEnv } from './config.js';
import { startIndexer } from './indexer.js';

export { configFromEnv, startIndexer };

async function main(): Promise<void> {
  const indexer = await startIndexer(configFromEnv());
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      indexer.close().then(
        () => process.exit(0),
        (error: Error) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: Error) => {
    console.error(`indexer: ${error.message}`);
    process.exit(1);
  });
}
