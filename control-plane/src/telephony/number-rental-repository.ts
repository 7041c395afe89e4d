/** Managed number rentals (migration 017_number_rentals.sql): the only SQL for them. */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';

export type RentalStatus = 'PENDING' | 'ACTIVE' | 'UNPAID' | 'RELEASED' | 'FAILED';

export interface NumberRental {
  id: string;
  organisationId: string;
  phoneNumber: string;
  phoneNumberId: string | null;
  status: RentalStatus;
  currency: string;
  monthlyPriceE4: number;
  paidThrough: Date | null;
  unpaidSince: Date | null;
  releasedAt: Date | null;
  releaseReason: string | null;
  createdAt: Date;
}

interface RentalColumns {
  id: string;
  organisation_id: string;
  phone_number: string;
  phone_number_id: string | null;
  status: RentalStatus;
  currency: string;
  monthly_price_e4: string;
  paid_through: Date | null;
  unpaid_since: Date | null;
  released_at: Date | null;
  release_reason: string | null;
  created_at: Date;
}

const toRental = (row: RentalColumns): NumberRental => ({
  id: row.id,
  organisationId: row.organisation_id,
  phoneNumber: row.phone_number,
  phoneNumberId: row.phone_number_id,
  status: row.status,
  currency: row.currency,
  monthlyPriceE4: Number(row.monthly_price_e4),
  paidThrough: row.paid_through,
  unpaidSince: row.unpaid_since,
  releasedAt: row.released_at,
  releaseReason: row.release_reason,
  createdAt: row.created_at,
});

/**
 * Records the intent to rent, before the carrier is asked; undefined when the number already has a live rental
 * (someone else is renting it, or it is rented).
 */
export async function insertPendingRental(
  sql: Queryable,
  rental: { organisationId: string; phoneNumber: string; currency: string; monthlyPriceE4: number },
): Promise<NumberRental | undefined> {
  const [row] = await sql<RentalColumns[]>`
    insert into number_rentals (id, organisation_id, phone_number, status, currency, monthly_price_e4)
    values (${newId()}, ${rental.organisationId}, ${rental.phoneNumber}, 'PENDING', ${rental.currency},
            ${rental.monthlyPriceE4})
    on conflict (phone_number) where status in ('PENDING', 'ACTIVE', 'UNPAID') do nothing
    returning *`;
  return row && toRental(row);
}

/** The rental, locked for the caller's transaction. */
export async function lockRental(tx: Queryable, id: string): Promise<NumberRental | undefined> {
  const [row] = await tx<RentalColumns[]>`select * from number_rentals where id = ${id} for update`;
  return row && toRental(row);
}

/** The live rental (ACTIVE or UNPAID) of the organisation's phone number, locked. */
export async function lockLiveRentalOfNumber(
  tx: Queryable,
  organisationId: string,
  phoneNumberId: string,
): Promise<NumberRental | undefined> {
  const [row] = await tx<RentalColumns[]>`
    select * from number_rentals
     where organisation_id = ${organisationId} and phone_number_id = ${phoneNumberId} and status in ('ACTIVE', 'UNPAID')
     for update`;
  return row && toRental(row);
}

export async function activateRental(
  tx: Queryable,
  id: string,
  fields: { phoneNumberId: string; paidThrough: Date; monthlyPriceE4: number },
): Promise<void> {
  await tx`update number_rentals set status = 'ACTIVE', phone_number_id = ${fields.phoneNumberId},
             paid_through = ${fields.paidThrough}, monthly_price_e4 = ${fields.monthlyPriceE4}, unpaid_since = null,
             updated_at = now()
           where id = ${id}`;
}

/** A renewal paid: the rental runs to `paidThrough`, and any arrears are over. */
export async function extendRental(
  tx: Queryable,
  id: string,
  fields: { paidThrough: Date; monthlyPriceE4: number },
): Promise<void> {
  await tx`update number_rentals set status = 'ACTIVE', paid_through = ${fields.paidThrough},
             monthly_price_e4 = ${fields.monthlyPriceE4}, unpaid_since = null, updated_at = now()
           where id = ${id}`;
}

export async function markRentalUnpaid(tx: Queryable, id: string, at: Date): Promise<void> {
  await tx`update number_rentals set status = 'UNPAID', unpaid_since = coalesce(unpaid_since, ${at}), updated_at = now()
           where id = ${id}`;
}

export async function closeRental(
  tx: Queryable,
  id: string,
  status: 'RELEASED' | 'FAILED',
  reason: string,
  at: Date,
): Promise<void> {
  await tx`update number_rentals set status = ${status}, released_at = ${at}, release_reason = ${reason},
             updated_at = now()
           where id = ${id}`;
}

/**
 * Up to `limit` rentals the job must look at now, each locked and skipped by other instances (FOR UPDATE SKIP
 * LOCKED): live ones fallen due, UNPAID ones past their grace, PENDING ones abandoned mid-rent.
 */
export async function claimRentalsToVisit(
  tx: Queryable,
  at: Date,
  options: { graceMs: number; pendingStaleMs: number; limit: number },
): Promise<NumberRental[]> {
  const rows = await tx<RentalColumns[]>`
    select * from number_rentals
     where (status in ('ACTIVE', 'UNPAID') and paid_through <= ${at})
        or (status = 'UNPAID' and unpaid_since <= ${new Date(at.getTime() - options.graceMs)})
        or (status = 'PENDING' and created_at <= ${new Date(at.getTime() - options.pendingStaleMs)})
     order by paid_through nulls first
     limit ${options.limit}
     for update skip locked`;
  return rows.map(toRental);
}

/** The organisation's rentals, newest first. */
export async function listRentals(sql: Queryable, organisationId: string): Promise<NumberRental[]> {
  const rows = await sql<RentalColumns[]>`
    select * from number_rentals where organisation_id = ${organisationId} order by created_at desc, id desc`;
  return rows.map(toRental);
}
