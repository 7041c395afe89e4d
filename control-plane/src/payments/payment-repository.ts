/** Payments at the processor (migration 010 `payments`). The only SQL for them. */
import type { Queryable } from '../db/database.ts';

export type PaymentKind = 'WALLET_TOPUP' | 'PLAN_TOPUP' | 'PLAN_SUBSCRIPTION';
export type PaymentStatus = 'PENDING' | 'PAID' | 'FAILED' | 'EXPIRED';

export interface NewPayment {
  id: string;
  organisationId: string;
  kind: PaymentKind;
  quoteId: string | null;
  gateway: string;
  pgOrderId: string;
  chargeMinor: number;
  chargeCurrency: string;
  /** What the wallet receives once paid: WALLET cents (USD), or PLAN_WALLET units (minor ×10⁴). */
  creditAmount: number;
  creditCurrency: string;
  billingCountry: string;
  returnUrl: string | null;
  createdById: string | null;
  /** PLAN_SUBSCRIPTION: the plan bought. */
  planId?: string | null;
}

export interface PaymentRow extends NewPayment {
  status: PaymentStatus;
  pgPaymentId: string | null;
  creditedTransactionId: string | null;
  createdAt: Date;
}

interface Columns {
  id: string;
  organisation_id: string;
  kind: PaymentKind;
  quote_id: string | null;
  status: PaymentStatus;
  gateway: string;
  pg_order_id: string;
  pg_payment_id: string | null;
  charge_minor: string;
  charge_currency: string;
  credit_amount: string;
  credit_currency: string;
  billing_country: string;
  return_url: string | null;
  created_by_id: string | null;
  plan_id: string | null;
  credited_transaction_id: string | null;
  created_at: Date;
}

const toPayment = (row: Columns): PaymentRow => ({
  id: row.id,
  organisationId: row.organisation_id,
  kind: row.kind,
  quoteId: row.quote_id,
  status: row.status,
  gateway: row.gateway,
  pgOrderId: row.pg_order_id,
  pgPaymentId: row.pg_payment_id,
  chargeMinor: Number(row.charge_minor),
  chargeCurrency: row.charge_currency,
  creditAmount: Number(row.credit_amount),
  creditCurrency: row.credit_currency,
  billingCountry: row.billing_country,
  returnUrl: row.return_url,
  createdById: row.created_by_id,
  planId: row.plan_id,
  creditedTransactionId: row.credited_transaction_id,
  createdAt: row.created_at,
});

export async function insertPayment(sql: Queryable, payment: NewPayment): Promise<void> {
  await sql`
    insert into payments (id, organisation_id, kind, quote_id, status, gateway, pg_order_id, charge_minor,
                          charge_currency, credit_amount, credit_currency, billing_country, return_url, created_by_id,
                          plan_id)
    values (${payment.id}, ${payment.organisationId}, ${payment.kind}, ${payment.quoteId}, 'PENDING',
            ${payment.gateway}, ${payment.pgOrderId}, ${payment.chargeMinor}, ${payment.chargeCurrency},
            ${payment.creditAmount}, ${payment.creditCurrency}, ${payment.billingCountry}, ${payment.returnUrl},
            ${payment.createdById}, ${payment.planId ?? null})`;
}

export async function findPayment(sql: Queryable, id: string): Promise<PaymentRow | undefined> {
  const [row] = await sql<Columns[]>`select * from payments where id = ${id}`;
  return row && toPayment(row);
}

/** The payment of a processor order, locked until the caller's transaction ends (webhooks of one order queue here). */
export async function lockPaymentByOrder(
  tx: Queryable,
  gateway: string,
  pgOrderId: string,
): Promise<PaymentRow | undefined> {
  const [row] = await tx<Columns[]>`
    select * from payments where gateway = ${gateway} and pg_order_id = ${pgOrderId} for update`;
  return row && toPayment(row);
}

export async function markPaymentPaid(
  tx: Queryable,
  id: string,
  pgPaymentId: string,
  creditedTransactionId: string,
): Promise<void> {
  await tx`update payments set status = 'PAID', pg_payment_id = ${pgPaymentId},
             credited_transaction_id = ${creditedTransactionId}, updated_at = now()
           where id = ${id}`;
}

/** A failed attempt; only a PENDING payment turns FAILED (a later attempt on the same order may still pay it). */
export async function markPaymentFailed(tx: Queryable, id: string): Promise<void> {
  await tx`update payments set status = 'FAILED', updated_at = now() where id = ${id} and status = 'PENDING'`;
}
