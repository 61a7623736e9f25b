// The lab dashboard: a page and its files, served by the control plane at / and /ui/<file>. The
// page is plain HTML, CSS and ES modules (nothing fetched from elsewhere) that talk to the API of
// the same origin.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound } from '../../../lib/errors.js';
import { projectRoot } from '../../../lib/project-root.js';

interface Asset {
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

// The page fetches from its own origin, and from the lab's faucet (another port) for a claim.
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; connect-src 'self' http: https:; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

// From the source folder whether running from src/ (tsx) or from dist/: the page is not compiled.
const UI_DIR = join(projectRoot(), 'control-plane', 'src', 'dashboard', 'ui');

/** The dashboard's files by name, read once. */
function loadAssets(dir: string): Map<string, Asset> {
  return new Map(
    readdirSync(dir)
      .filter((file) => TYPES[extname(file)])
      .map((file) => [file, { type: TYPES[extname(file)], body: readFileSync(join(dir, file)) }]),
  );
}

function send(reply: FastifyReply, asset: Asset) {
  return reply
    .type(asset.type)
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .send(asset.body);
}

/**
 * Serves the dashboard: GET / is the page, GET /ui/<file> its styles and scripts. Register with
 * `app.register(dashboardPlugin)`.
 */
export async function dashboardPlugin(app: FastifyInstance): Promise<void> {
  const assets = loadAssets(UI_DIR);
  const page = assets.get('index.html');
  if (!page) throw new Error(`the dashboard page is missing from ${UI_DIR}`);
  app.get('/', { schema: { hide: true } }, (_request, reply) =>
    send(reply.header('content-security-policy', CONTENT_SECURITY_POLICY), page),
  );
  app.get<{ Params: { file: string } }>('/ui/:file', { schema: { hide: true } }, (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset || request.params.file === 'index.html')
      throw notFound(
        `the dashboard has no file "${request.params.file}" (files: ${[...assets.keys()].filter((file) => file !== 'index.html').join(', ')})`,
      );
    return send(reply, asset);
  });
}
