/**
 * A progress bar on standard error for uploads and downloads. Drawn in place on a terminal; when standard error is
 * not one (a pipe, a log), nothing is drawn unless --progress asks, and then a line per tenth so logs stay short.
 */
import type { ProgressListener } from './rest-api.ts';

const BAR_WIDTH = 30;

export function progressBar(label: string, forced: boolean): { update: ProgressListener; done(): void } {
  const terminal = process.stderr.isTTY === true;
  if (!terminal && !forced) return { update: () => {}, done: () => {} };
  let lastTenth = -1;
  let drawn = false;
  return {
    update(done, total) {
      if (terminal) {
        process.stderr.write(`\r${render(label, done, total)}`);
        drawn = true;
        return;
      }
      const tenth = total ? Math.floor((done / total) * 10) : Math.floor(done / (256 * 1024));
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      process.stderr.write(`${render(label, done, total)}\n`);
    },
    done() {
      if (drawn) process.stderr.write('\n');
    },
  };
}

function render(label: string, done: number, total: number | undefined): string {
  if (!total) return `${label} ${formatBytes(done)}`;
  const share = Math.min(1, done / total);
  const filled = Math.round(share * BAR_WIDTH);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}`;
  return `${label} [${bar}] ${String(Math.round(share * 100)).padStart(3)}% ${formatBytes(done)}/${formatBytes(total)}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
