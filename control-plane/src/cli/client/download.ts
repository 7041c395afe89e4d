/** A download verb's whole work: the file, a progress bar while it comes, and what was saved. */
import path from 'node:path';
import type { ClientContext } from './client-command.ts';
import { notice, printJson } from './output.ts';
import { formatBytes, progressBar } from './progress.ts';
import type { Query } from './rest-api.ts';

/** Downloads with a progress bar; prints the file written (and its size and type under --json). */
export async function download(context: ClientContext, route: string, out: string, query: Query): Promise<number> {
  const bar = progressBar(`downloading ${path.basename(out)}`, context.progress);
  const saved = await (await context.api()).download(route, out, { query, onProgress: bar.update });
  bar.done();
  if (context.json) {
    printJson({ file: out, bytes: saved.bytes, contentType: saved.contentType });
    return 0;
  }
  process.stdout.write(`${out}\n`);
  notice(`saved ${formatBytes(saved.bytes)} (${saved.contentType})`);
  return 0;
}
