/**
 * `npm run bench -- wallet`: call-ended events of 1,000 calls of 50 organisations applied at full speed, each
 * delivered twice at once, through the control plane's event store — each applied end meters its call and debits
 * the wallet (issue 14, Benchmark). Measures debits per second and latency per event on the real Postgres
 * (DATABASE_URL) and on embedded PGlite, then checks that exactly one usage record and one debit exist per call and
 * that every wallet's stored balance equals the replay of its journal.
 */
import { machineFacts } from '../machine.ts';
import { reportPage, writeResultsFile } from '../results-file.ts';
import {
  EXIT_FAILED,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_USAGE,
  type ExitCode,
  type Suite,
  type SuiteContext,
} from '../suite.ts';
import { brokenInvariants, formatReport, type WalletTarget } from './report.ts';
import { DEFAULT_WORKLOAD, runWalletWorkload } from './workload.ts';

export const walletSuite: Suite = {
  name: 'wallet',
  summary: 'call-ended events metered and debited: debits/s and p99 on Postgres (DATABASE_URL) and PGlite',
  options: {
    concurrency: {
      type: 'string',
      valueName: '<n>',
      description: `events applied at once, and the pool size (default ${DEFAULT_WORKLOAD.concurrency})`,
    },
    'skip-pglite': { type: 'boolean', description: 'measure the real Postgres only' },
    out: { type: 'string', valueName: '<dir>', description: 'where the report is written (default bench/results)' },
  },
  run: runWallet,
};

async function runWallet(context: SuiteContext): Promise<ExitCode> {
  const raw = context.extra.concurrency;
  const concurrency =
    raw === undefined
      ? DEFAULT_WORKLOAD.concurrency
      : typeof raw === 'string' && /^[1-9]\d{0,2}$/.test(raw)
        ? Number(raw)
        : undefined;
  if (concurrency === undefined) {
    context.log(`--concurrency must be a whole number from 1 to 999, got "${String(raw)}"`);
    return EXIT_USAGE;
  }
  const workload = { ...DEFAULT_WORKLOAD, concurrency };
  const machine = machineFacts();
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const targets: WalletTarget[] = [];
  if (databaseUrl) {
    targets.push({
      name: 'Postgres',
      run: await runWalletWorkload(databaseUrl, workload, context.log, context.signal),
    });
  }
  if (context.signal.aborted) return EXIT_INTERRUPTED;
  if (!context.extra['skip-pglite'] || !databaseUrl) {
    // PGlite serves one connection at a time: the same concurrency queues at its socket.
    targets.push({ name: 'PGlite', run: await runWalletWorkload(undefined, workload, context.log, context.signal) });
  }
  if (context.signal.aborted) return EXIT_INTERRUPTED;
  const text = formatReport(machine, targets);
  context.out(text);
  if (context.options.json)
    context.out(
      JSON.stringify(
        targets.map(({ name, run }) => ({ name, ...run, latency: undefined, broken: brokenInvariants(run) })),
      ),
    );
  const out = typeof context.extra.out === 'string' ? context.extra.out : undefined;
  const command = `npm run bench -- wallet --concurrency ${concurrency}`;
  const file = await writeResultsFile('wallet', machine, reportPage('Wallet metering', machine, command, text), out);
  context.log(`report written to ${file}`);
  return targets.some(({ run }) => brokenInvariants(run).length > 0) ? EXIT_FAILED : EXIT_OK;
}
