/**
 * The rented numbers' clock (docs/architecture.md §10). Each pass:
 * - renews every live rental fallen due: the next month charged to the plan wallet (billing/rental-metering.ts,
 *   keyed on the period, so two instances or a retried pass charge it once); a wallet that cannot pay turns the
 *   rental UNPAID — the number keeps answering, and each pass tries again;
 * - gives back to the carrier a number UNPAID for longer than the grace period, and retires it;
 * - gives back a number whose rent was abandoned midway (PENDING: the process died while the carrier was asked).
 * Rentals are claimed with FOR UPDATE SKIP LOCKED; giving a number back twice is harmless (the carrier's second
 * answer is "not found", which counts as given back), so releases run after the claim's transaction.
 */
import { PollLoop } from '../background/poll-loop.ts';
import type { Queryable, Sql } from '../db/database.ts';
import { RENTAL_PERIOD_MS, chargeRentalPeriod, rentalTerms } from '../billing/rental-metering.ts';
import {
  claimRentalsToVisit,
  closeRental,
  extendRental,
  markRentalUnpaid,
  type NumberRental,
} from './number-rental-repository.ts';
import { retireNumber } from './phone-number-repository.ts';

/** How often the job looks, ms: a renewal is charged at most this late. */
const PASS_INTERVAL_MS = 60_000;
/** An unpaid number keeps answering this long before it is given back: a week to top up the plan wallet. */
export const RENTAL_GRACE_MS = 7 * 24 * 60 * 60 * 1000;
/** A rent still PENDING after this long was abandoned (the carrier answers within its 10 s request timeout). */
export const PENDING_STALE_MS = 10 * 60 * 1000;
/** Rentals visited per pass. */
const BATCH_SIZE = 50;

/** Gives a number back to the carrier (carrier-a's service account, carriers/carrier-a/inventory.ts). */
export interface NumberGiveBack {
  release(phoneNumber: string): Promise<void>;
}

export type RentalLog = (level: 'info' | 'error', message: string, detail: object) => void;

export interface RentalPassResult {
  renewed: number;
  unpaid: number;
  released: number;
}

export class NumberRentalJob {
  readonly #sql: Sql;
  readonly #carrier: NumberGiveBack;
  readonly #log: RentalLog;
  readonly #loop: PollLoop;

  constructor(sql: Sql, carrier: NumberGiveBack, log: RentalLog = () => {}, intervalMs = PASS_INTERVAL_MS) {
    this.#sql = sql;
    this.#carrier = carrier;
    this.#log = log;
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs,
      onError: (error) => this.#log('error', 'number rental pass failed', { error: String(error) }),
    });
  }

  start(): this {
    this.#loop.start();
    return this;
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass at `at` (tests pass their own clock). */
  async runOnce(at = new Date()): Promise<RentalPassResult> {
    const result: RentalPassResult = { renewed: 0, unpaid: 0, released: 0 };
    const toRelease: { rental: NumberRental; reason: string }[] = [];
    await this.#sql.begin(async (tx) => {
      const claimed = await claimRentalsToVisit(tx, at, {
        graceMs: RENTAL_GRACE_MS,
        pendingStaleMs: PENDING_STALE_MS,
        limit: BATCH_SIZE,
      });
      for (const rental of claimed) {
        if (rental.status === 'PENDING') {
          toRelease.push({ rental, reason: 'the rent was abandoned before the carrier confirmed it' });
        } else if (rental.status === 'UNPAID' && at.getTime() - rental.unpaidSince!.getTime() >= RENTAL_GRACE_MS) {
          toRelease.push({ rental, reason: 'the plan wallet did not pay the rent within the grace period' });
        } else if (await this.#renew(tx, rental, at)) {
          result.renewed += 1;
        } else {
          await markRentalUnpaid(tx, rental.id, at);
          result.unpaid += 1;
        }
      }
    });
    for (const { rental, reason } of toRelease) {
      try {
        await this.#carrier.release(rental.phoneNumber);
        await this.#sql.begin(async (tx) => {
          await closeRental(tx, rental.id, rental.status === 'PENDING' ? 'FAILED' : 'RELEASED', reason, at);
          if (rental.phoneNumberId) await retireNumber(tx, rental.phoneNumberId);
        });
        result.released += 1;
        this.#log('info', 'rented number given back', { rentalId: rental.id, phoneNumber: rental.phoneNumber, reason });
      } catch (error) {
        // The carrier is down: the rental stays as it is and the next pass tries again.
        this.#log('error', 'could not give a rented number back', { rentalId: rental.id, error: String(error) });
      }
    }
    return result;
  }

  /** Charges the period starting where the rental is paid to; false when the plan wallet cannot pay it. */
  async #renew(tx: Queryable, rental: NumberRental, at: Date): Promise<boolean> {
    const terms = await rentalTerms(tx, rental.organisationId, at);
    // Off plan billing now (or the card lost its line): the month cannot be paid, and grace applies as for a wallet
    // without money.
    if (!terms.payable) return false;
    const start = rental.paidThrough!;
    const end = new Date(start.getTime() + RENTAL_PERIOD_MS);
    const charge = await chargeRentalPeriod(tx, {
      organisationId: rental.organisationId,
      rentalId: rental.id,
      currency: terms.currency,
      priceE4: terms.priceE4,
      start,
      end,
      actor: 'number-rental-job',
      description: `Phone number ${rental.phoneNumber}: month from ${start.toISOString().slice(0, 10)}`,
    });
    if (charge.status === 'insufficient_funds') return false;
    await extendRental(tx, rental.id, { paidThrough: end, monthlyPriceE4: terms.priceE4 });
    return true;
  }
}
