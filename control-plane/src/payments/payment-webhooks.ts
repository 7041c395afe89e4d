/**
 * The processor's webhooks (POST /webhooks/payments/razorpay): the only way money enters a wallet from a payment.
 *
 * - The signature is checked over the raw bytes before anything is read; an unsigned or mis-signed delivery changes
 *   nothing, is logged, and is recorded as such (payment_webhook_events, signature_valid false, no payload).
 * - A signed `payment.captured` / `order.paid` for a payment not yet PAID marks it PAID and credits the wallet in
 *   ONE transaction, then settles unpaid usage from the new money. Deliveries of one order queue on the payment's
 *   row lock and the credit carries the idempotency key `payment:<id>`, so however many times and however
 *   concurrently the event arrives, the wallet is credited once.
 * - What the processor says it took must equal what the payment asked for (amount and currency); a mismatch is
 *   logged and changes nothing.
 * - `payment.failed` marks a PENDING payment FAILED; a later successful attempt on the same order still pays it.
 */
import { settleUnpaidUsage } from '../billing/settlement.ts';
import { activatePlan } from '../billing/subscriptions.ts';
import type { Queryable } from '../db/database.ts';
import { ApiError, badField } from '../errors.ts';
import { unstorableField } from '../http/storable-text.ts';
import { GATEWAY, readPaymentEvent, type PaymentEvent } from '../integrations/payments/razorpay.ts';
import { post } from '../wallet/ledger.ts';
import { formatDollars } from '../wallet/money.ts';
import { PAYMENT_SETTINGS, type PaymentSetup } from './payment-setup.ts';
import { lockPaymentByOrder, markPaymentFailed, markPaymentPaid, type PaymentRow } from './payment-repository.ts';
import { recordWebhookEvent } from './webhook-event-repository.ts';

/** Plan-wallet top-ups stay spendable 365 days (spec document 2, POST /billing/topups). */
export const TOP_UP_GRANT_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Event types and ids are stored only when they look like the processor's own. */
const EVENT_TYPE = /^[a-z_]{1,40}(\.[a-z_]{1,40}){0,3}$/;
const EVENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type WebhookOutcome = 'credited' | 'duplicate' | 'amount_mismatch' | 'unknown_order' | 'failed' | 'ignored';

export interface WebhookDelivery {
  rawBody: Buffer;
  signature: string | undefined;
  eventId: string | undefined;
}

export async function receivePaymentWebhook(setup: PaymentSetup, delivery: WebhookDelivery): Promise<WebhookOutcome> {
  const processor = setup.processor;
  if (!processor) throw new ApiError('unavailable', `Card payments are unavailable: ${PAYMENT_SETTINGS} are not set`);
  const eventId = delivery.eventId && EVENT_ID.test(delivery.eventId) ? delivery.eventId : null;
  const parsed = parseJson(delivery.rawBody);
  const type = typeof parsed?.event === 'string' && EVENT_TYPE.test(parsed.event) ? parsed.event : null;

  if (!processor.verifyWebhook(delivery.rawBody, delivery.signature)) {
    setup.log('warn', 'payment webhook refused: missing or wrong signature', {
      eventId,
      eventType: type,
      signed: delivery.signature !== undefined,
    });
    await recordWebhookEvent(setup.sql, {
      gateway: GATEWAY,
      eventId,
      eventType: type,
      signatureValid: false,
      outcome: delivery.signature === undefined ? 'unsigned' : 'bad_signature',
      payload: null,
    });
    throw badField('headers.x-razorpay-signature', 'is missing or does not sign this body');
  }
  if (!parsed) throw badField('body', 'must be the JSON event the processor signed');

  const event = readPaymentEvent(parsed);
  const payload = unstorableField(parsed) === undefined ? parsed : null;
  return setup.sql.begin(async (tx) => {
    const outcome = await apply(tx, setup, event);
    await recordWebhookEvent(tx, {
      gateway: GATEWAY,
      eventId,
      eventType: type,
      signatureValid: true,
      outcome,
      payload,
    });
    return outcome;
  });
}

async function apply(tx: Queryable, setup: PaymentSetup, event: PaymentEvent): Promise<WebhookOutcome> {
  if (event.kind === 'ignored') return 'ignored';
  const payment = await lockPaymentByOrder(tx, GATEWAY, event.orderId);
  if (!payment) {
    setup.log('warn', 'payment webhook for an order Parley does not know', {
      type: event.type,
      pgOrderId: event.orderId,
    });
    return 'unknown_order';
  }
  if (event.kind === 'failed') {
    await markPaymentFailed(tx, payment.id);
    setup.log('info', 'payment attempt failed', { paymentId: payment.id, reason: event.reason });
    return payment.status === 'PENDING' ? 'failed' : 'ignored';
  }
  if (payment.status === 'PAID') return 'duplicate';
  if (event.amountMinor !== payment.chargeMinor || event.currency !== payment.chargeCurrency) {
    setup.log('error', 'payment webhook amount differs from the order: nothing credited', {
      paymentId: payment.id,
      expected: `${payment.chargeMinor} ${payment.chargeCurrency}`,
      received: `${event.amountMinor} ${event.currency}`,
    });
    return 'amount_mismatch';
  }
  const credited = await credit(tx, setup, payment, event.paymentId, setup.now());
  await markPaymentPaid(tx, payment.id, event.paymentId, credited);
  await settleUnpaidUsage(tx, payment.organisationId);
  setup.log('info', 'payment captured: wallet credited', { paymentId: payment.id, transactionId: credited });
  return 'credited';
}

/**
 * What a paid payment buys, through the ledger; returns the transaction id (the earlier one on a replay). A plan
 * purchase starts the subscription with its first allowance; when it can no longer start (another subscription
 * began meanwhile, the billing country moved to the other currency), the money paid is not lost: it goes into the
 * plan wallet as a top-up, and the log says why.
 */
async function credit(
  tx: Queryable,
  setup: PaymentSetup,
  payment: PaymentRow,
  pgPaymentId: string,
  now: Date,
): Promise<string> {
  if (payment.kind === 'PLAN_SUBSCRIPTION' && payment.planId) {
    const started = await startPaidPlan(tx, setup, payment, now);
    if (started) return started;
  }
  const plan = payment.kind !== 'WALLET_TOPUP';
  const result = await post(tx, {
    organisationId: payment.organisationId,
    wallet: plan ? 'PLAN_WALLET' : 'WALLET',
    currency: payment.creditCurrency,
    type: 'CREDIT',
    amount: payment.creditAmount,
    counterparty: 'payments',
    referenceType: 'TOP_UP',
    referenceId: payment.id,
    description: plan
      ? `Plan wallet top-up paid with ${GATEWAY} (${pgPaymentId})`
      : `Wallet top-up of ${formatDollars(payment.creditAmount)} USD paid with ${GATEWAY} (${pgPaymentId})`,
    actor: 'payments',
    idempotencyKey: `payment:${payment.id}`,
    ...(plan
      ? { grant: { source: 'TOP_UP' as const, expiresAt: new Date(now.getTime() + TOP_UP_GRANT_DAYS * DAY_MS) } }
      : {}),
  });
  if (result.status === 'insufficient_funds') throw new Error('a credit cannot lack funds');
  return result.transaction.id;
}

async function startPaidPlan(
  tx: Queryable,
  setup: PaymentSetup,
  payment: PaymentRow,
  now: Date,
): Promise<string | undefined> {
  try {
    const activation = await activatePlan(tx, {
      organisationId: payment.organisationId,
      plan: { id: payment.planId! },
      actor: 'payments',
      at: now,
    });
    setup.log('info', 'plan purchase paid: subscription started', {
      paymentId: payment.id,
      subscriptionId: activation.subscriptionId,
    });
    return activation.allowanceTransactionId;
  } catch (error) {
    // Refusals are decided before anything is written, so the transaction goes on to credit the money instead.
    if (!(error instanceof ApiError)) throw error;
    setup.log('warn', 'plan purchase paid but the plan cannot start: the fee goes to the plan wallet', {
      paymentId: payment.id,
      reason: error.message,
    });
    return undefined;
  }
}

function parseJson(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
