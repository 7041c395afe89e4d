/**
 * The payment processor: Razorpay, spoken to over `fetch` as its API documents it (docs/architecture.md §10).
 *
 * - Orders API: `POST /v1/orders` with HTTP basic auth `key_id:key_secret` and a JSON body `{ amount, currency,
 *   receipt, notes }` (amount in the currency's minor units; receipt at most 40 characters; notes at most 15 pairs of
 *   256 characters). Errors come back as `{ error: { code, description, field?, … } }`.
 * - Webhooks: a POST of a JSON event `{ entity: 'event', event, payload: { payment: { entity }, order?: { entity } } }`
 *   whose header `X-Razorpay-Signature` is the hex HMAC-SHA256 of the raw body under the webhook secret (set in the
 *   processor's dashboard), and `X-Razorpay-Event-Id` names the event (the same on a redelivery).
 *
 * Parley's own code never sees a Razorpay-specific shape: it gets a ProcessorOrder or a PaymentEvent.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The gateway name stored with each payment and shown as `gateway`. */
export const GATEWAY = 'razorpay';
/** The processor's checkout script, which the hosted payment page loads. */
export const CHECKOUT_SCRIPT_URL = 'https://checkout.razorpay.com/v1/checkout.js';
/** Header names as Node gives them (lower case). */
export const SIGNATURE_HEADER = 'x-razorpay-signature';
export const EVENT_ID_HEADER = 'x-razorpay-event-id';
/**
 * How long an order request may take. The caller holds the quote's row lock meanwhile, so it must be bounded; 10 s is
 * well above the processor's usual sub-second answer and below a browser's patience.
 */
const REQUEST_TIMEOUT_MS = 10_000;
/** Razorpay's ids (`order_…`, `pay_…`): letters, digits and underscores. Anything else is not theirs. */
const PROCESSOR_ID = /^[A-Za-z0-9_]{1,64}$/;
const CURRENCY = /^[A-Z]{3}$/;
/** Razorpay's limit on `receipt`. */
const RECEIPT_MAX_LENGTH = 40;

export interface PaymentsCredentials {
  keyId: string;
  keySecret: string;
  webhookSecret: string;
}

export interface NewOrder {
  /** Minor units of `currency` (paise, cents). */
  amountMinor: number;
  currency: string;
  /** Our reference of the order (the payment id), at most 40 characters. */
  receipt: string;
  notes: Record<string, string>;
}

export interface ProcessorOrder {
  id: string;
  amountMinor: number;
  currency: string;
  status: string;
}

/** The processor refused the request (`refused`, with its own description) or did not answer (`unreachable`). */
export class PaymentProcessorError extends Error {
  override name = 'PaymentProcessorError';
  readonly kind: 'refused' | 'unreachable';
  /** HTTP status of a refusal. */
  readonly status: number | undefined;

  constructor(kind: 'refused' | 'unreachable', message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.kind = kind;
    this.status = options.status;
  }
}

/** What a webhook tells Parley. */
export type PaymentEvent =
  /** `payment.captured` or `order.paid`: the money of `orderId` was taken. */
  | { kind: 'captured'; type: string; orderId: string; paymentId: string; amountMinor: number; currency: string }
  /** `payment.failed`: one attempt on the order failed (the payer may still try again on the same order). */
  | { kind: 'failed'; type: string; orderId: string; paymentId: string; reason: string | null }
  /** Any other event, or one without the fields Parley needs. */
  | { kind: 'ignored'; type: string };

export class RazorpayClient {
  readonly #apiUrl: string;
  readonly #credentials: PaymentsCredentials;

  constructor(apiUrl: string, credentials: PaymentsCredentials) {
    this.#apiUrl = apiUrl.replace(/\/+$/, '');
    this.#credentials = credentials;
  }

  /** The publishable key the checkout opens with. */
  get keyId(): string {
    return this.#credentials.keyId;
  }

  async createOrder(order: NewOrder): Promise<ProcessorOrder> {
    if (order.receipt.length > RECEIPT_MAX_LENGTH) throw new Error('a receipt is at most 40 characters');
    const auth = Buffer.from(`${this.#credentials.keyId}:${this.#credentials.keySecret}`).toString('base64');
    let response: Response;
    try {
      response = await fetch(`${this.#apiUrl}/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: order.amountMinor,
          currency: order.currency,
          receipt: order.receipt,
          notes: order.notes,
        }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new PaymentProcessorError('unreachable', 'the payment processor did not answer', { cause: error });
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!response.ok) {
      const description = describeError(body) ?? `HTTP ${response.status}`;
      throw new PaymentProcessorError('refused', `the payment processor refused the order: ${description}`, {
        status: response.status,
      });
    }
    const id = body?.id;
    const amount = body?.amount;
    if (typeof id !== 'string' || !id || typeof amount !== 'number' || typeof body?.currency !== 'string') {
      throw new PaymentProcessorError('refused', 'the payment processor answered without an order id');
    }
    return { id, amountMinor: amount, currency: body.currency, status: String(body.status ?? 'created') };
  }

  /** Whether `signature` (the X-Razorpay-Signature header) signs exactly these bytes; constant-time. */
  verifyWebhook(rawBody: Buffer, signature: string | undefined): boolean {
    if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
    const expected = Buffer.from(webhookSignature(rawBody, this.#credentials.webhookSecret), 'hex');
    return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
  }
}

/** The X-Razorpay-Signature of a body: hex HMAC-SHA256 under the webhook secret. */
export function webhookSignature(rawBody: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Reads a (signature-checked) webhook event. */
export function readPaymentEvent(event: unknown): PaymentEvent {
  const root = asObject(event);
  const type = typeof root?.event === 'string' ? root.event : '';
  const payload = asObject(root?.payload);
  const payment = asObject(asObject(payload?.payment)?.entity);
  const order = asObject(asObject(payload?.order)?.entity);
  if (type === 'payment.captured' || type === 'order.paid') {
    const orderId = processorId(payment?.order_id) ?? processorId(order?.id);
    const paymentId = processorId(payment?.id);
    const amount = payment ? payment.amount : order?.amount_paid;
    const currency = [payment?.currency, order?.currency].find((c) => typeof c === 'string' && CURRENCY.test(c)) as
      | string
      | undefined;
    if (orderId && paymentId && Number.isSafeInteger(amount) && currency) {
      return { kind: 'captured', type, orderId, paymentId, amountMinor: amount as number, currency };
    }
  } else if (type === 'payment.failed') {
    const orderId = processorId(payment?.order_id);
    const paymentId = processorId(payment?.id);
    if (orderId && paymentId) {
      const reason = str(payment?.error_description)?.slice(0, 200) ?? null;
      return { kind: 'failed', type, orderId, paymentId, reason };
    }
  }
  return { kind: 'ignored', type };
}

function describeError(body: Record<string, unknown> | undefined): string | undefined {
  const error = asObject(body?.error);
  const description = str(error?.description);
  const field = str(error?.field);
  return description && field ? `${description} (${field})` : description;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function processorId(value: unknown): string | undefined {
  return typeof value === 'string' && PROCESSOR_ID.test(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
