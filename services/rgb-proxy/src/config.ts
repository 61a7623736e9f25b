import { join } from 'node:path';
import { portFromEnv, positiveIntEnv } from '../../../lib/env.js';

export interface ProxyConfig {
  host: string;
  port: number;
  dataDir: string;
  maxUploadBytes: number;
}

/** 16 MiB: consignments of a regtest lab are kilobytes; UDA media files can be larger. */
const DEFAULT_MAX_UPLOAD_BYTES = 16 * 1024 * 1024;

/** HOST (127.0.0.1), PORT (3000, the reference proxy's), DATA_DIR (./data/rgb-proxy), MAX_UPLOAD_BYTES (16 MiB). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ProxyConfig {
  return {
    host: env.HOST ?? '127.0.0.1',
    port: portFromEnv(env, 3000),
    dataDir: env.DATA_DIR || join(process.cwd(), 'data', 'rgb-proxy'),
    maxUploadBytes: positiveIntEnv(env, 'MAX_UPLOAD_BYTES', DEFAULT_MAX_UPLOAD_BYTES),
  };
}
