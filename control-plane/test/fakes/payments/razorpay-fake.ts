/**
 * Contract fake of the payment processor (Razorpay), speaking what Parley's adapter uses the way the processor
 * documents it: the Orders API (`POST /v1/orders`, `GET /v1/orders/:id`) behind HTTP basic auth `key_id:key_secret`
 * (401 "Authentication failed" otherwise), request validation with Razorpay's error shape
 * `{ error: { code: 'BAD_REQUEST_ERROR', description, source, step, reason, metadata, field } }` (amount a whole
 * number of at least 100 minor units, a supported currency, receipt at most 40 characters, at most 15 notes of 256
 * characters, no unknown fields), and the order entity `{ id: 'order_…', entity: 'order', amount, amount_paid,
 * amount_due, currency, receipt, status, attempts, notes, created_at }`.
 *
 * The test plays the payer with `pay(orderId)`: the order is paid and the processor's webhook is POSTed to the
 * configured URL exactly as Razorpay sends it — the event JSON `{ entity: 'event', account_id, event, contains,
 * payload: { payment: { entity } }, created_at }`, `X-Razorpay-Signature` the hex HMAC-SHA256 of the raw body under
 * the webhook secret, `X-Razorpay-Event-Id` — optionally several times at once, unsigned, or signed wrongly.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { FakeCarrierServer, type FakeAnswer, type RecordedRequest } from '../carriers/fake-carrier-server.ts';

export interface FakeProcessorAccount {
  keyId: string;
  keySecret: string;
  webhookSecret: string;
  accountId: string;
}

export interface FakeOrder {
  id: string;
  entity: 'order';
  amount: number;
  amount_paid: number;
  amount_due: number;
  currency: string;
  receipt: string | null;
  offer_id: null;
  status: 'created' | 'attempted' | 'paid';
  attempts: number;
  notes: Record<string, string>;
  created_at: number;
}

export interface PayOptions {
  /** The event to send; default `payment.captured`. */
  event?: 'payment.captured' | 'order.paid' | 'payment.failed';
  /** Deliveries of the same event, all at once; default 1. */
  times?: number;
  /** `valid` (default), `none` (no header) or `wrong` (signed with another secret). */
  signature?: 'valid' | 'none' | 'wrong';
  /** Override what the payment says it took (a processor and a shop disagreeing). */
  amount?: number;
  currency?: string;
}

export interface Delivery {
  status: number;
  body: string;
}

const ALLOWED_ORDER_FIELDS = new Set(['amount', 'currency', 'receipt', 'notes', 'partial_payment', 'payment_capture']);
const CURRENCIES = new Set(['INR', 'USD', 'EUR', 'GBP', 'SGD', 'MYR']);
/** Razorpay's smallest order: 100 minor units (1.00 of the currency). */
const MINIMUM_AMOUNT = 100;

export class RazorpayFake {
  readonly server: FakeCarrierServer;
  readonly account: FakeProcessorAccount;
  readonly orders = new Map<string, FakeOrder>();
  /** Where `pay` delivers webhooks: Parley's /webhooks/payments/razorpay. */
  webhookUrl = '';

  private constructor(server: FakeCarrierServer, account: FakeProcessorAccount) {
    this.server = server;
    this.account = account;
  }

  static async start(
    account: FakeProcessorAccount = {
      keyId: `rzp_test_${token(14)}`,
      keySecret: token(24),
      webhookSecret: token(20),
      accountId: `acc_${token(14)}`,
    },
  ): Promise<RazorpayFake> {
    let fake: RazorpayFake | undefined;
    const server = await FakeCarrierServer.start((request) => fake!.#route(request));
    fake = new RazorpayFake(server, account);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  /** Order-creating requests received (accepted or not). */
  orderRequests(): RecordedRequest[] {
    return this.server.received((r) => r.method === 'POST' && r.path === '/v1/orders');
  }

  /**
   * The payer pays `orderId`: the order turns paid and the webhook is delivered `times` times concurrently. Returns
   * Parley's answers.
   */
  async pay(orderId: string, options: PayOptions = {}): Promise<Delivery[]> {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`the fake has no order ${orderId}`);
    const type = options.event ?? 'payment.captured';
    order.attempts += 1;
    if (type === 'payment.failed') order.status = 'attempted';
    else Object.assign(order, { status: 'paid', amount_paid: order.amount, amount_due: 0 });
    const body = JSON.stringify(this.#event(order, type, options));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-razorpay-event-id': `${token(14)}`,
    };
    const mode = options.signature ?? 'valid';
    if (mode !== 'none') {
      const secret = mode === 'valid' ? this.account.webhookSecret : `${this.account.webhookSecret}-not`;
      headers['x-razorpay-signature'] = createHmac('sha256', secret).update(body).digest('hex');
    }
    return Promise.all(
      Array.from({ length: options.times ?? 1 }, async () => {
        const response = await fetch(this.webhookUrl, { method: 'POST', headers, body });
        return { status: response.status, body: await response.text() };
      }),
    );
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #event(order: FakeOrder, type: NonNullable<PayOptions['event']>, options: PayOptions): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    const failed = type === 'payment.failed';
    const payment = {
      id: `pay_${token(14)}`,
      entity: 'payment',
      amount: options.amount ?? order.amount,
      currency: options.currency ?? order.currency,
      status: failed ? 'failed' : 'captured',
      order_id: order.id,
      invoice_id: null,
      international: order.currency !== 'INR',
      method: 'card',
      amount_refunded: 0,
      refund_status: null,
      captured: !failed,
      description: null,
      card_id: `card_${token(14)}`,
      bank: null,
      wallet: null,
      vpa: null,
      email: 'payer@example.com',
      contact: '+919000090000',
      notes: order.notes,
      fee: failed ? null : Math.round(order.amount * 0.02),
      tax: failed ? null : Math.round(order.amount * 0.0036),
      error_code: failed ? 'BAD_REQUEST_ERROR' : null,
      error_description: failed ? 'Payment processing failed because of incorrect OTP' : null,
      error_source: failed ? 'customer' : null,
      error_step: failed ? 'payment_authentication' : null,
      error_reason: failed ? 'incorrect_otp' : null,
      acquirer_data: failed ? {} : { auth_code: String(100000 + Math.floor(Math.random() * 899999)) },
      created_at: now,
    };
    const payload: Record<string, unknown> = { payment: { entity: payment } };
    if (type === 'order.paid') payload.order = { entity: { ...order } };
    return {
      entity: 'event',
      account_id: this.account.accountId,
      event: type,
      contains: type === 'order.paid' ? ['payment', 'order'] : ['payment'],
      payload,
      created_at: now,
    };
  }

  #route(request: RecordedRequest): FakeAnswer {
    const auth = request.basicAuth;
    if (!auth || auth.user !== this.account.keyId || auth.password !== this.account.keySecret) {
      return { status: 401, body: error('Authentication failed', { source: 'NA', step: 'NA', reason: 'NA' }) };
    }
    if (request.method === 'POST' && request.path === '/v1/orders') return this.#createOrder(request.body);
    const fetched = /^\/v1\/orders\/([^/]+)$/.exec(request.path);
    if (request.method === 'GET' && fetched) {
      const order = this.orders.get(decodeURIComponent(fetched[1]!));
      return order ? { status: 200, body: order } : { status: 400, body: error('The id provided does not exist') };
    }
    return { status: 404, body: error('The requested URL was not found on the server.') };
  }

  #createOrder(body: Record<string, unknown>): FakeAnswer {
    const extra = Object.keys(body).filter((key) => !ALLOWED_ORDER_FIELDS.has(key));
    if (extra.length) return invalid(`${extra.join(', ')} is/are not required and should not be sent`, extra[0]!);
    const { amount, currency, receipt, notes } = body;
    if (amount === undefined) return invalid('The amount field is required.', 'amount');
    if (typeof amount !== 'number' || !Number.isInteger(amount))
      return invalid('The amount must be an integer.', 'amount');
    if (typeof currency !== 'string' || !currency) return invalid('The currency field is required.', 'currency');
    if (!CURRENCIES.has(currency)) return invalid('Currency is not supported', 'currency');
    if (amount < MINIMUM_AMOUNT) return invalid(`The amount must be at least ${currency} 1.00`, 'amount');
    if (receipt !== undefined && (typeof receipt !== 'string' || receipt.length > 40))
      return invalid('The receipt may not be greater than 40 characters.', 'receipt');
    if (notes !== undefined) {
      const entries = typeof notes === 'object' && notes !== null ? Object.entries(notes) : [];
      if (entries.length > 15) return invalid('Number of notes is more than allowed limit of 15', 'notes');
      if (entries.some(([, value]) => typeof value !== 'string' || value.length > 256))
        return invalid('The notes value may not be greater than 256 characters.', 'notes');
    }
    if ([...this.orders.values()].some((o) => receipt !== undefined && o.receipt === receipt))
      return invalid('Receipt must be unique', 'receipt');
    const order: FakeOrder = {
      id: `order_${token(14)}`,
      entity: 'order',
      amount,
      amount_paid: 0,
      amount_due: amount,
      currency,
      receipt: (receipt as string | undefined) ?? null,
      offer_id: null,
      status: 'created',
      attempts: 0,
      notes: (notes as Record<string, string> | undefined) ?? {},
      created_at: Math.floor(Date.now() / 1000),
    };
    this.orders.set(order.id, order);
    return { status: 200, body: order };
  }
}

function error(description: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    error: {
      code: 'BAD_REQUEST_ERROR',
      description,
      source: 'business',
      step: 'payment_initiation',
      reason: 'input_validation_failed',
      metadata: {},
      ...extra,
    },
  };
}

function invalid(description: string, field: string): FakeAnswer {
  return { status: 400, body: error(description, { field }) };
}

/** Razorpay-looking ids: letters and digits. */
function token(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');
}
