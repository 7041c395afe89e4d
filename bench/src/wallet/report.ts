/** The wallet suite's report: throughput and latency per database, and whether every invariant held. */
import { describeMachine, type MachineFacts } from '../machine.ts';
import { percentile } from '../percentiles.ts';
import { formatTable } from '../table.ts';
import type { WalletRun } from './workload.ts';

/**
 * Round trips to the database per debit: the applied delivery's transaction (begin; the call locked; the event
 * recorded; the end applied; analysis queued (2); the call and its billing read; the rate line; the usage record;
 * the ledger posting (wallet locked, key looked up, then transaction, platform account, entries and balance in one
 * statement); the record paid; the call billed; last_event_at; commit) is 16, the duplicate's (begin, lock, event
 * refused, commit) 4.
 */
export const ROUND_TRIPS_PER_DEBIT = 20;

/** Issue 14's target on the real Postgres. */
export const TARGET_DEBITS_PER_SECOND = 1_000;

export interface WalletTarget {
  name: string;
  run: WalletRun;
}

export function debitsPerSecond(run: WalletRun): number {
  return run.checks.debits / (run.elapsedMs / 1000);
}

/** Every invariant the suite checks, for one run: an empty list means all held. */
export function brokenInvariants(run: WalletRun): string[] {
  const { checks, workload, outcomes } = run;
  const broken: string[] = [];
  if (checks.usageRecords !== workload.calls)
    broken.push(`${checks.usageRecords} usage records, not ${workload.calls}`);
  if (checks.debits !== workload.calls) broken.push(`${checks.debits} debits, not ${workload.calls}`);
  if (checks.paidRecords !== workload.calls)
    broken.push(`${checks.paidRecords} usage records paid, not ${workload.calls}`);
  if (checks.billedCalls !== workload.calls)
    broken.push(`${checks.billedCalls} calls marked billed, not ${workload.calls}`);
  if (outcomes.applied !== workload.calls) broken.push(`${outcomes.applied} events applied, not ${workload.calls}`);
  if (checks.walletsOffJournal > 0)
    broken.push(`${checks.walletsOffJournal} wallets differ from their journal's replay`);
  if (checks.unbalancedTransactions > 0) broken.push(`${checks.unbalancedTransactions} unbalanced transactions`);
  if (!checks.moneyAccountedFor) broken.push('opening balances − balances ≠ usage charged');
  return broken;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '—');

export function formatReport(machine: MachineFacts, targets: readonly WalletTarget[]): string {
  const first = targets[0]!.run.workload;
  const rows = [
    [
      'database',
      'debits/s',
      'ceiling/s',
      'wall s',
      'events',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'max ms',
      'applied',
      'duplicates',
    ],
    ...targets.map(({ name, run }) => [
      name,
      debitsPerSecond(run).toFixed(0),
      (run.roundTripsPerSecond / ROUND_TRIPS_PER_DEBIT).toFixed(0),
      (run.elapsedMs / 1000).toFixed(2),
      String(run.latency.length),
      ms(percentile(run.latency, 50)),
      ms(percentile(run.latency, 90)),
      ms(percentile(run.latency, 99)),
      ms(run.latency.at(-1) ?? Number.NaN),
      String(run.outcomes.applied),
      String(run.outcomes.duplicate),
    ]),
  ];
  const lines = [
    `Wallet: call-ended events metered and debited (${describeMachine(machine)})`,
    '',
    `${first.calls} calls of ${first.organisations} organisations; each call's ended event delivered ${first.deliveries}× at ` +
      `once, ${first.concurrency} events in flight (pool of ${first.concurrency}). One event = one transaction: the ` +
      'call row locked, the event recorded once, the end applied, analysis queued, usage recorded, the wallet debited.',
    'Latency is per delivery (a duplicate waits for the first delivery to commit, then finds it).',
    `ceiling/s: \`select 1\` round trips per second measured just before at the same concurrency, divided by the ` +
      `${ROUND_TRIPS_PER_DEBIT} round trips one debit costs (16 for the applied delivery, 4 for its duplicate): what ` +
      'this machine allows for work of that many statements, whatever they do.',
    '',
    formatTable(rows, [
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
    ]),
    '',
  ];
  for (const { name, run } of targets) {
    const broken = brokenInvariants(run);
    const c = run.checks;
    lines.push(
      `${name} (${run.database}): ${c.usageRecords} usage records, ${c.debits} debits, ${c.billedCalls} calls billed; ` +
        `${c.wallets} wallets, ${c.wallets - c.walletsOffJournal} equal to the replay of their journal; ` +
        `${c.unbalancedTransactions} unbalanced transactions; money accounted for: ${c.moneyAccountedFor ? 'yes' : 'NO'}` +
        ` — ${broken.length === 0 ? 'every invariant held' : `BROKEN: ${broken.join('; ')}`}`,
    );
  }
  const postgres = targets.find((t) => t.name === 'Postgres');
  if (postgres) {
    const rate = debitsPerSecond(postgres.run);
    lines.push(
      '',
      `Target ≥ ${TARGET_DEBITS_PER_SECOND} debits/s on the real Postgres: ${rate >= TARGET_DEBITS_PER_SECOND ? 'met' : 'NOT met'} (${rate.toFixed(0)}/s).`,
    );
  } else {
    lines.push('', 'No DATABASE_URL: the real Postgres was not measured (the target is for it).');
  }
  return lines.join('\n');
}
