import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/**
 * require() from ln-service's `lightning` package (the package ln-service re-exports), for the
 * files of it loaded one by one (lnd.ts, methods.ts) instead of through its index, which loads all.
 */
export const lightningRequire = createRequire(createRequire(createRequire(import.meta.url).resolve('ln-service')).resolve('lightning'));

/** The folder of the `lightning` package. */
export const lightningDir = dirname(lightningRequire.resolve('./package.json'));
