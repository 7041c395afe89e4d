/**
 * GET /widget.js: the website widget (control-plane/widget/, docs/architecture.md §15), bundled by esbuild into one
 * minified file the first time it is asked for and kept in memory — no build step, as for the rest of Parley, and
 * the sources are small (the bundle takes tens of milliseconds).
 */
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { build } from 'esbuild';

const ENTRY = fileURLToPath(new URL('../../../widget/widget.ts', import.meta.url));
/** How long browsers and CDNs may keep the script, s: a new version reaches pages within the hour. */
const CACHE_SECONDS = 3600;
/** Browsers the bundle is written for: those with shadow DOM, fetch and crypto.getRandomValues. */
const TARGETS = ['es2020', 'chrome90', 'firefox90', 'safari14'];

let bundle: Promise<string> | undefined;

/** The bundled widget (built once per process; a failed build is tried again at the next request). */
export function widgetBundle(): Promise<string> {
  bundle ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: TARGETS,
    write: false,
    legalComments: 'none',
  }).then(
    (result) => result.outputFiles[0]!.text,
    (error: unknown) => {
      bundle = undefined;
      throw error;
    },
  );
  return bundle;
}

export default async function widgetScriptRoutes(app: FastifyInstance) {
  app.get('/widget.js', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) =>
    reply
      .type('application/javascript; charset=utf-8')
      .header('cache-control', `public, max-age=${CACHE_SECONDS}`)
      .header('access-control-allow-origin', '*')
      .send(await widgetBundle()),
  );
}
