/**
 * `npm run bench -- knowledge`: about 10,000 knowledge chunks indexed through the control plane's own service and
 * processing job, then questions searched one at a time — search latency p50/p90/p99 on the real Postgres
 * (DATABASE_URL) and on embedded PGlite (issue 18, Benchmark: target p99 < 20 ms on both). Full-text search: the
 * hybrid half depends on an embeddings endpoint's latency, not the database's.
 */
import { describeMachine, machineFacts } from '../machine.ts';
import { percentile } from '../percentiles.ts';
import { reportPage, writeResultsFile } from '../results-file.ts';
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, type ExitCode, type Suite, type SuiteContext } from '../suite.ts';
import { formatTable } from '../table.ts';
import { DEFAULT_WORKLOAD, runKnowledgeWorkload, type KnowledgeRun } from './workload.ts';

/** Issue 18's target, on both databases. */
export const TARGET_P99_MS = 20;

export const knowledgeSuite: Suite = {
  name: 'knowledge',
  summary: '10,000 knowledge chunks: full-text search p50/p99 on Postgres (DATABASE_URL) and PGlite',
  options: {
    'skip-pglite': { type: 'boolean', description: 'measure the real Postgres only' },
    out: { type: 'string', valueName: '<dir>', description: 'where the report is written (default bench/results)' },
  },
  run: runKnowledge,
};

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '—');

async function runKnowledge(context: SuiteContext): Promise<ExitCode> {
  const machine = machineFacts();
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const runs: { name: string; run: KnowledgeRun }[] = [];
  if (databaseUrl) {
    runs.push({
      name: 'Postgres',
      run: await runKnowledgeWorkload(databaseUrl, DEFAULT_WORKLOAD, context.log, context.signal),
    });
  }
  if (context.signal.aborted) return EXIT_INTERRUPTED;
  if (!context.extra['skip-pglite'] || !databaseUrl) {
    runs.push({
      name: 'PGlite',
      run: await runKnowledgeWorkload(undefined, DEFAULT_WORKLOAD, context.log, context.signal),
    });
  }
  if (context.signal.aborted) return EXIT_INTERRUPTED;
  const rows = [
    [
      'database',
      'chunks',
      'index s',
      'searches',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      `p99 < ${TARGET_P99_MS} ms`,
      'answer first',
    ],
    ...runs.map(({ name, run }) => [
      name,
      String(run.chunks),
      (run.indexMs / 1000).toFixed(1),
      String(run.latency.length),
      ms(percentile(run.latency, 50)),
      ms(percentile(run.latency, 90)),
      ms(percentile(run.latency, 99)),
      ms(run.latency.at(-1) ?? Number.NaN),
      percentile(run.latency, 99) < TARGET_P99_MS ? 'yes' : 'no',
      run.answerFound ? 'yes' : 'NO',
    ]),
  ];
  const text = [
    `Machine: ${describeMachine(machine)}`,
    `Workload: ${DEFAULT_WORKLOAD.documents} documents × ${DEFAULT_WORKLOAD.sectionsPerDocument} sections and a café page; ` +
      `${DEFAULT_WORKLOAD.queries} questions of 2–5 words (every tenth "what time do you open on Sundays"), one at a time, ` +
      "over all of the organisation's knowledge bases, 5 results each.",
    '',
    formatTable(rows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right']),
  ].join('\n');
  context.out(text);
  if (context.options.json) {
    context.out(
      JSON.stringify(
        runs.map(({ name, run }) => ({
          name,
          chunks: run.chunks,
          indexMs: run.indexMs,
          p50: percentile(run.latency, 50),
          p99: percentile(run.latency, 99),
          answerFound: run.answerFound,
        })),
      ),
    );
  }
  const out = typeof context.extra.out === 'string' ? context.extra.out : undefined;
  const file = await writeResultsFile(
    'knowledge',
    machine,
    reportPage('Knowledge search', machine, 'npm run bench -- knowledge', text),
    out,
  );
  context.log(`report written to ${file}`);
  return runs.every(({ run }) => run.answerFound) ? EXIT_OK : EXIT_FAILED;
}
