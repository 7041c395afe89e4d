/**
 * Plan billing's clock (docs/architecture.md §10): within a paid period, every 30 days an ACTIVE subscription's
 * allowance is put in the plan wallet as a PLAN_CYCLE grant that lapses when the next one arrives ("refreshed every
 * 30 days", spec document 3); a period that ends unpaid turns the subscription PAST_DUE (no allowance for it until
 * a renewal is paid); and money whose time ran out (allowances, 365-day top-ups, the sign-up credit) is moved out of
 * the wallet by an expiry posting. Postings also expire lapsed grants themselves, so the balance a caller is refused on
 * is never one the sweep has not caught up with; the sweep keeps stored balances and reports true for idle wallets.
 *
 * Instances share the work: allowances are claimed with FOR UPDATE SKIP LOCKED, and each allowance's posting is
 * keyed on the subscription and its due time, so a grant is given once however passes overlap.
 */
import { PollLoop } from '../background/poll-loop.ts';
import type { Sql } from '../db/database.ts';
import { expireLapsedGrants, post } from '../wallet/ledger.ts';
import {
  claimDueAllowances,
  lapseUnpaidPeriods,
  setNextGrantAt,
  walletsWithLapsedGrants,
} from './plan-cycle-repository.ts';

/** Spec document 3: the plan allowance is refreshed every 30 days. */
export const ALLOWANCE_PERIOD_MS = 30 * 24 * 60 * 60 * 1000;
/** How often the job looks, ms: an allowance arrives at most this late. */
const PASS_INTERVAL_MS = 60_000;
/** Allowances granted and wallets swept per transaction of a pass. */
const BATCH_SIZE = 50;

export type PlanWalletLog = (level: 'info' | 'error', message: string, detail: object) => void;

export interface PassResult {
  allowancesGranted: number;
  /** Subscriptions whose period ended unpaid: now PAST_DUE. */
  periodsLapsed: number;
  walletsExpired: number;
}

export class PlanWalletJob {
  readonly #sql: Sql;
  readonly #log: PlanWalletLog;
  readonly #loop: PollLoop;

  constructor(sql: Sql, log: PlanWalletLog = () => {}, intervalMs = PASS_INTERVAL_MS) {
    this.#sql = sql;
    this.#log = log;
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs,
      onError: (error) => this.#log('error', 'plan wallet pass failed', { error: String(error) }),
    });
  }

  start(): this {
    this.#loop.start();
    return this;
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass at `at` (default now): due allowances granted, lapsed money moved out. */
  async runOnce(at = new Date()): Promise<PassResult> {
    let allowancesGranted = 0;
    for (;;) {
      const granted = await this.#sql.begin(async (tx) => {
        const due = await claimDueAllowances(tx, at, BATCH_SIZE);
        for (const allowance of due) {
          // A subscription that was idle for several periods gets one allowance (the current one), not a backlog.
          let grantAt = allowance.grantAt;
          while (grantAt.getTime() + ALLOWANCE_PERIOD_MS <= at.getTime())
            grantAt = new Date(grantAt.getTime() + ALLOWANCE_PERIOD_MS);
          const nextAt = new Date(grantAt.getTime() + ALLOWANCE_PERIOD_MS);
          if (allowance.allowanceE4 > 0) {
            await post(tx, {
              organisationId: allowance.organisationId,
              wallet: 'PLAN_WALLET',
              currency: allowance.currency,
              type: 'CREDIT',
              amount: allowance.allowanceE4,
              counterparty: 'plan_allowance',
              referenceType: 'PLAN_CYCLE',
              referenceId: allowance.subscriptionId,
              description: `Plan allowance (${allowance.planCode}) for ${grantAt.toISOString().slice(0, 10)} to ${nextAt.toISOString().slice(0, 10)}`,
              actor: 'plan billing',
              idempotencyKey: `plan-cycle:${allowance.subscriptionId}:${grantAt.toISOString()}`,
              grant: { source: 'PLAN_CYCLE', expiresAt: nextAt },
              at,
            });
          }
          await setNextGrantAt(tx, allowance.subscriptionId, nextAt);
        }
        return due.length;
      });
      allowancesGranted += granted;
      if (granted < BATCH_SIZE) break;
    }
    const lapsed = await lapseUnpaidPeriods(this.#sql, at);
    let walletsExpired = 0;
    for (const wallet of await walletsWithLapsedGrants(this.#sql, at, BATCH_SIZE * 20)) {
      await this.#sql.begin((tx) => expireLapsedGrants(tx, wallet.organisationId, wallet.currency, at));
      walletsExpired += 1;
    }
    const periodsLapsed = lapsed.length;
    if (allowancesGranted || walletsExpired || periodsLapsed) {
      this.#log('info', 'plan wallets refreshed', { allowancesGranted, walletsExpired, periodsLapsed });
    }
    return { allowancesGranted, periodsLapsed, walletsExpired };
  }
}
