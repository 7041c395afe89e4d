/**
 * `npm run bench -- dialler`: 10,000 campaign contacts dialled by two dialler instances on one database, the fake
 * carrier answering instantly (issue 17, Benchmark). Reports the dispatch rate, the scheduling lag past the window
 * opening (each campaign's first call; target p99 < 1 s) and that no contact was called twice or left out. On the
 * real Postgres (DATABASE_URL), else embedded PGlite.
 */
import { machineFacts } from '../machine.ts';
import { percentile } from '../percentiles.ts';
import { reportPage, writeResultsFile } from '../results-file.ts';
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, type ExitCode, type Suite, type SuiteContext } from '../suite.ts';
import { formatTable } from '../table.ts';
import { DEFAULT_WORKLOAD, runDiallerWorkload, type DiallerRun } from './workload.ts';

/** The target for the lag from the window opening to a campaign's first call, ms. */
const FIRST_CALL_LAG_TARGET_MS = 1_000;

export const diallerSuite: Suite = {
  name: 'dialler',
  summary:
    'campaign dialler: 10,000 contacts, two instances, instant fake carrier: calls/s, lag past the window opening',
  options: {
    out: { type: 'string', valueName: '<dir>', description: 'where the report is written (default bench/results)' },
  },
  run: runDialler,
};

async function runDialler(context: SuiteContext): Promise<ExitCode> {
  const machine = machineFacts();
  const run = await runDiallerWorkload(
    process.env.DATABASE_URL || undefined,
    DEFAULT_WORKLOAD,
    context.log,
    context.signal,
  );
  if (context.signal.aborted) return EXIT_INTERRUPTED;
  const text = formatReport(run);
  context.out(text);
  if (context.options.json) context.out(JSON.stringify({ ...run, callLagMs: undefined, firstCallLagMs: undefined }));
  const out = typeof context.extra.out === 'string' ? context.extra.out : undefined;
  const file = await writeResultsFile(
    'dialler',
    machine,
    reportPage('Campaign dialler', machine, 'npm run bench -- dialler', text),
    out,
  );
  context.log(`report written to ${file}`);
  return broken(run).length ? EXIT_FAILED : EXIT_OK;
}

function broken(run: DiallerRun): string[] {
  const problems: string[] = [];
  if (run.calledTwice) problems.push(`${run.calledTwice} contacts called twice`);
  if (run.neverCalled) problems.push(`${run.neverCalled} contacts never called`);
  if (run.callsPlaced !== run.contacts) problems.push(`${run.callsPlaced} calls for ${run.contacts} contacts`);
  if (run.timedOut) problems.push('the run did not finish in time');
  return problems;
}

export function formatReport(run: DiallerRun): string {
  const ms = (values: number[], p: number) => `${Math.round(percentile(Float64Array.from(values), p))}`;
  const { workload } = run;
  const firstP99 = percentile(Float64Array.from(run.firstCallLagMs), 99);
  const rows = [
    ['measure', 'value'],
    ['database', run.database],
    ['campaigns × contacts', `${workload.organisations} × ${workload.contactsPerOrganisation} = ${run.contacts}`],
    ['lines per organisation', `${workload.lines}`],
    ['dialler instances (calls each)', `${workload.instances} (${run.perInstance.join(' / ')})`],
    ['calls placed', `${run.callsPlaced}`],
    ['contacts called twice / never', `${run.calledTwice} / ${run.neverCalled}`],
    ['contacts COMPLETED', `${run.completed}`],
    ['campaigns at the end', run.campaignStates.join('; ')],
    ['window opening → last call, s', run.elapsedSeconds.toFixed(1)],
    ['dispatch rate, calls/s', run.dispatchRate.toFixed(0)],
    [
      "lag to a campaign's first call, ms p50 / p99 / max",
      `${ms(run.firstCallLagMs, 50)} / ${ms(run.firstCallLagMs, 99)} / ${ms(run.firstCallLagMs, 100)}`,
    ],
    ['lag to each call, ms p50 / p99', `${ms(run.callLagMs, 50)} / ${ms(run.callLagMs, 99)}`],
  ];
  const verdict =
    firstP99 < FIRST_CALL_LAG_TARGET_MS
      ? `first-call lag p99 ${Math.round(firstP99)} ms: within the ${FIRST_CALL_LAG_TARGET_MS} ms target`
      : `first-call lag p99 ${Math.round(firstP99)} ms: MISSES the ${FIRST_CALL_LAG_TARGET_MS} ms target`;
  const problems = broken(run);
  return [
    formatTable(rows, ['left', 'right']),
    '',
    verdict,
    problems.length ? `BROKEN: ${problems.join('; ')}` : 'every contact called exactly once',
  ].join('\n');
}
