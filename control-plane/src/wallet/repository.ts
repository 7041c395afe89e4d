/**
 * The wallet's tables: `wallet_balances` (one row per organisation, migration 004) and `wallet_adjustments`, the
 * journal of operator credits and debits (migration 008). The only SQL for them.
 */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';

export interface WalletRow {
  balanceMinor: number;
  currency: string;
  hasPaid: boolean;
}

export interface Adjustment {
  organisationId: string;
  /** Positive credits, negative debits; minor units of `currency`. */
  amountMinor: number;
  currency: string;
  reason: string;
  /** Who made it: `parley start (bootstrap)`, `parley org create`, an operator's name. */
  actor: string;
}

export interface AdjustmentRow extends Adjustment {
  id: string;
  balanceAfterMinor: number;
}

export async function readWalletRow(sql: Queryable, organisationId: string): Promise<WalletRow | undefined> {
  const [row] = await sql<{ balance_minor: string; currency: string; has_paid: boolean }[]>`
    select balance_minor, currency, has_paid from wallet_balances where organisation_id = ${organisationId}`;
  return row && { balanceMinor: Number(row.balance_minor), currency: row.currency, hasPaid: row.has_paid };
}

/**
 * Moves the balance by `amountMinor` and journals it, in the caller's transaction (the balance and its journal row
 * are written together or not at all). A wallet that does not exist yet is opened in `currency`.
 */
export async function insertAdjustment(tx: Queryable, adjustment: Adjustment): Promise<AdjustmentRow> {
  const [balance] = await tx<{ balance_minor: string; currency: string }[]>`
    insert into wallet_balances (id, organisation_id, balance_minor, currency)
    values (${newId()}, ${adjustment.organisationId}, ${adjustment.amountMinor}, ${adjustment.currency})
    on conflict (organisation_id) do update
      set balance_minor = wallet_balances.balance_minor + excluded.balance_minor, updated_at = now()
    returning balance_minor, currency`;
  if (balance!.currency !== adjustment.currency) {
    throw new Error(`the wallet holds ${balance!.currency}, not ${adjustment.currency}`);
  }
  const id = newId();
  const balanceAfterMinor = Number(balance!.balance_minor);
  await tx`insert into wallet_adjustments (id, organisation_id, amount_minor, currency, balance_after_minor, reason, actor)
           values (${id}, ${adjustment.organisationId}, ${adjustment.amountMinor}, ${adjustment.currency},
                   ${balanceAfterMinor}, ${adjustment.reason}, ${adjustment.actor})`;
  return { ...adjustment, id, balanceAfterMinor };
}
