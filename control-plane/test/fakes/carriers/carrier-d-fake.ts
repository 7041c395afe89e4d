/**
 * Contract fake of carrier-d's reseller API, exactly as written at the top of src/integrations/carriers/carrier-d.ts:
 * reseller login for a bearer token (401 invalid_credentials; 401 token_expired for an unknown or expired token),
 * the KYC application with one endpoint per step and its state machine (409 invalid_state out of order), DID
 * inventory paged by page/per_page, purchase charged to the reseller float (402 insufficient_balance), purchased
 * DIDs with their bots, bot routing and renewal. Errors are `{success: false, error: {code, message}}`.
 */
import { randomBytes } from 'node:crypto';
import { FakeCarrierServer, type FakeAnswer, type RecordedRequest } from './fake-carrier-server.ts';

const API = '/api/v1';
const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 100;
const TOKEN_TTL_S = 3600;

export type FakeKycStatus = 'in_progress' | 'under_review' | 'approved' | 'rejected';
type Step = 'register' | 'pan' | 'aadhaar' | 'gst' | 'final';

export interface FakeApplication {
  application_id: string;
  customer_ref: string;
  account_type: 'individual' | 'business';
  status: FakeKycStatus | string;
  step: Step;
  aadhaar_verified: boolean;
  aadhaar_link_issued: boolean;
  rejection_reason: string | null;
  submitted_at: string | null;
  decided_at: string | null;
  updated_at: string;
  details: Record<string, unknown>;
}

export interface FakeDid {
  id: number;
  did_number: string;
  country_code: string;
  type: number;
  months: number;
  city: string;
  state: string;
  rate_per_month: number;
  currency: string;
}

export interface FakePurchase {
  order_id: string;
  bot_id: string;
  did: FakeDid;
  application_id: string;
  voice_url: string;
  months: number;
  expires_at: string;
  renewals: string[];
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const DAY_MS = 86_400_000;

export function carrierDError(status: number, code: string, message: string): FakeAnswer {
  return { status, body: { success: false, error: { code, message } } };
}
const data = (body: unknown, status = 200): FakeAnswer => ({ status, body: { success: true, data: body } });

export class CarrierDFake {
  readonly server: FakeCarrierServer;
  /** The reseller account the fake accepts. */
  readonly reseller = { username: `reseller-${hex(4)}`, password: hex(12) };
  /** The reseller float in paise: purchases and renewals draw on it. */
  floatPaise = 1_000_000;
  readonly applications = new Map<string, FakeApplication>();
  readonly purchases: FakePurchase[] = [];
  readonly bots = new Map<string, string>();
  readonly #tokens = new Set<string>();
  readonly #inventory: FakeDid[] = [];
  #nextDidId = 1001;

  private constructor(server: FakeCarrierServer) {
    this.server = server;
  }

  static async start(): Promise<CarrierDFake> {
    let fake: CarrierDFake | undefined;
    const server = await FakeCarrierServer.start((request) => fake!.#answer(request));
    fake = new CarrierDFake(server);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Forgets every token issued, as a partner restart or token expiry would. */
  expireTokens(): void {
    this.#tokens.clear();
  }

  /** Puts a number up for sale; returns it with its integer id. */
  offer(didNumber: string, details: Partial<Omit<FakeDid, 'id' | 'did_number'>> = {}): FakeDid {
    const did: FakeDid = {
      id: this.#nextDidId++,
      did_number: didNumber,
      country_code: '91',
      type: 1,
      months: 1,
      city: 'Bengaluru',
      state: 'Karnataka',
      rate_per_month: 499,
      currency: 'INR',
      ...details,
    };
    this.#inventory.push(did);
    return did;
  }

  /** The customer completes the aadhaar page in a browser. */
  completeAadhaar(applicationId: string): void {
    this.#application(applicationId).aadhaar_verified = true;
  }

  /** The partner's review decides. */
  decide(applicationId: string, status: 'approved' | 'rejected', reason: string | null = null): void {
    const app = this.#application(applicationId);
    app.status = status;
    app.rejection_reason = status === 'rejected' ? reason : null;
    app.decided_at = new Date().toISOString();
  }

  /** The application of a customer, by the reseller's customer_ref (Parley's organisation id). */
  applicationOf(customerRef: string): FakeApplication | undefined {
    return [...this.applications.values()].find((a) => a.customer_ref === customerRef);
  }

  #application(id: string): FakeApplication {
    const app = this.applications.get(id);
    if (!app) throw new Error(`no fake carrier-d application ${id}`);
    return app;
  }

  #answer(request: RecordedRequest): FakeAnswer {
    if (!request.path.startsWith(`${API}/`)) return carrierDError(404, 'not_found', `No route ${request.path}`);
    const path = request.path.slice(API.length);
    if (path === '/auth/login' && request.method === 'POST') return this.#login(request);
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!token || !this.#tokens.has(token))
      return carrierDError(401, 'token_expired', 'Token expired or invalid; log in again');

    if (path === '/kyc/register' && request.method === 'POST') return this.#register(request.body);
    const step = /^\/kyc\/([^/]+)\/(pan|aadhaar|gst|final)$/.exec(path);
    if (step && request.method === 'POST')
      return this.#step(decodeURIComponent(step[1]!), step[2] as Step, request.body);
    const status = /^\/kyc\/([^/]+)$/.exec(path);
    if (status && request.method === 'GET') {
      const app = this.applications.get(decodeURIComponent(status[1]!));
      return app ? data(view(app)) : carrierDError(404, 'not_found', 'Application not found');
    }
    if (path === '/dids/available' && request.method === 'GET') return this.#available(request.query);
    if (path === '/dids/purchase' && request.method === 'POST') return this.#purchase(request.body);
    if (path === '/dids/purchased' && request.method === 'GET') {
      const wanted = request.query.did_number;
      const list = this.purchases.filter((p) => !wanted || p.did.did_number === wanted);
      return data({
        dids: list.map((p) => ({
          id: p.did.id,
          did_number: p.did.did_number,
          bot_id: p.bot_id,
          expires_at: p.expires_at,
        })),
      });
    }
    const bot = /^\/bots\/([^/]+)$/.exec(path);
    if (bot && request.method === 'PUT') {
      const id = decodeURIComponent(bot[1]!);
      if (!this.bots.has(id)) return carrierDError(404, 'not_found', 'Bot not found');
      const voiceUrl = request.body.voice_url;
      if (typeof voiceUrl !== 'string' || !/^https?:\/\//.test(voiceUrl))
        return carrierDError(400, 'validation_failed', 'voice_url must be an http(s) URL');
      this.bots.set(id, voiceUrl);
      return data({ bot_id: id, voice_url: voiceUrl });
    }
    const renew = /^\/dids\/(\d+)\/renew$/.exec(path);
    if (renew && request.method === 'POST') return this.#renew(Number(renew[1]), request.body);
    return carrierDError(404, 'not_found', `No route ${request.method} ${path}`);
  }

  #login(request: RecordedRequest): FakeAnswer {
    const { username, password } = request.body;
    if (username !== this.reseller.username || password !== this.reseller.password) {
      return carrierDError(401, 'invalid_credentials', 'Invalid reseller username or password');
    }
    const token = hex(16);
    this.#tokens.add(token);
    return data({ token, token_type: 'Bearer', expires_in: TOKEN_TTL_S });
  }

  #register(body: Record<string, unknown>): FakeAnswer {
    const problems: string[] = [];
    const need = (name: string) => {
      if (typeof body[name] !== 'string' || !(body[name] as string).trim()) problems.push(`${name} is required`);
    };
    need('customer_ref');
    for (const name of ['full_name', 'email', 'phone', 'billing_address']) need(name);
    if (body.account_type !== 'individual' && body.account_type !== 'business')
      problems.push('account_type must be individual or business');
    if (body.account_type === 'business') need('business_name');
    if (body.term_and_condition !== true) problems.push('term_and_condition must be accepted');
    if (typeof body.email === 'string' && !body.email.includes('@')) problems.push('email is invalid');
    if (problems.length) return carrierDError(400, 'validation_failed', problems.join('; '));
    const now = new Date().toISOString();
    const existingId = typeof body.application_id === 'string' ? body.application_id : undefined;
    if (existingId) {
      const app = this.applications.get(existingId);
      if (!app || app.customer_ref !== body.customer_ref)
        return carrierDError(404, 'not_found', 'Application not found');
      if (app.status === 'under_review' || app.status === 'approved')
        return carrierDError(409, 'invalid_state', `Application is ${app.status}`);
      Object.assign(app, {
        account_type: body.account_type,
        status: 'in_progress',
        step: 'register',
        aadhaar_verified: false,
        aadhaar_link_issued: false,
        rejection_reason: null,
        submitted_at: null,
        decided_at: null,
        updated_at: now,
        details: { register: body },
      });
      return data(view(app));
    }
    const app: FakeApplication = {
      application_id: `KYC${hex(6).toUpperCase()}`,
      customer_ref: body.customer_ref as string,
      account_type: body.account_type as 'individual' | 'business',
      status: 'in_progress',
      step: 'register',
      aadhaar_verified: false,
      aadhaar_link_issued: false,
      rejection_reason: null,
      submitted_at: null,
      decided_at: null,
      updated_at: now,
      details: { register: body },
    };
    this.applications.set(app.application_id, app);
    return data(view(app), 201);
  }

  #step(id: string, step: Step, body: Record<string, unknown>): FakeAnswer {
    const app = this.applications.get(id);
    if (!app) return carrierDError(404, 'not_found', 'Application not found');
    if (app.status !== 'in_progress') return carrierDError(409, 'invalid_state', `Application is ${app.status}`);
    const order: Step[] = ['register', 'pan', 'aadhaar', 'gst', 'final'];
    const done = order.indexOf(app.step);
    const previous =
      step === 'final' && app.account_type === 'individual' ? 'aadhaar' : order[order.indexOf(step) - 1]!;
    if (done < order.indexOf(previous))
      return carrierDError(409, 'invalid_state', `Complete the ${previous} step first`);
    switch (step) {
      case 'pan':
        if (typeof body.pan_holder_name !== 'string' || !/^[A-Z]{5}[0-9]{4}[A-Z]$/.test(String(body.pan_number))) {
          return carrierDError(400, 'validation_failed', 'pan_holder_name and a valid pan_number are required');
        }
        break;
      case 'aadhaar':
        app.aadhaar_link_issued = true;
        break;
      case 'gst':
        if (app.account_type !== 'business')
          return carrierDError(409, 'invalid_state', 'GST applies to business accounts only');
        if (!app.aadhaar_verified) return carrierDError(409, 'invalid_state', 'Aadhaar verification is not complete');
        if (typeof body.gst_number !== 'string' || body.gst_number.length !== 15)
          return carrierDError(400, 'validation_failed', 'gst_number must be 15 characters');
        break;
      case 'final':
        if (!app.aadhaar_verified) return carrierDError(409, 'invalid_state', 'Aadhaar verification is not complete');
        app.status = 'under_review';
        app.submitted_at = new Date().toISOString();
        break;
    }
    app.step = step;
    app.details[step] = body;
    app.updated_at = new Date().toISOString();
    const answer = view(app);
    if (step === 'aadhaar') {
      const redirect =
        typeof body.redirect_url === 'string' ? `&redirect_url=${encodeURIComponent(body.redirect_url)}` : '';
      return data({
        ...answer,
        aadhaar_verification_url: `https://kyc.carrier-d.example/aadhaar?application=${app.application_id}${redirect}`,
      });
    }
    return data(answer);
  }

  #available(query: Record<string, string>): FakeAnswer {
    const page = Number(query.page ?? 1);
    const perPage = Number(query.per_page ?? DEFAULT_PER_PAGE);
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) {
      return carrierDError(400, 'validation_failed', `page must be 1 or more and per_page 1 to ${MAX_PER_PAGE}`);
    }
    const sold = new Set(this.purchases.map((p) => p.did.id));
    const matches = this.#inventory.filter(
      (d) =>
        !sold.has(d.id) &&
        (!query.country_code || d.country_code === query.country_code.replace(/^\+/, '')) &&
        (!query.type || d.type === Number(query.type)) &&
        (!query.number || d.did_number.includes(query.number)) &&
        (!query.months || d.months <= Number(query.months)),
    );
    const slice = matches.slice((page - 1) * perPage, page * perPage);
    return data({
      dids: slice,
      pagination: { page, per_page: perPage, total: matches.length, total_pages: Math.ceil(matches.length / perPage) },
    });
  }

  #purchase(body: Record<string, unknown>): FakeAnswer {
    const did = this.#inventory.find((d) => d.id === body.did_id);
    if (!did || did.did_number !== body.did_number)
      return carrierDError(404, 'not_found', 'No such DID with that number');
    if (this.purchases.some((p) => p.did.id === did.id))
      return carrierDError(409, 'did_unavailable', 'DID already sold');
    const app = this.applications.get(String(body.application_id));
    if (!app || app.status !== 'approved')
      return carrierDError(409, 'kyc_not_approved', 'KYC is not approved for this customer');
    const months = Number(body.months);
    if (!Number.isInteger(months) || months < 1)
      return carrierDError(400, 'validation_failed', 'months must be a positive integer');
    const charge = did.rate_per_month * 100 * months;
    if (charge > this.floatPaise)
      return carrierDError(402, 'insufficient_balance', 'Reseller balance is too low for this purchase');
    this.floatPaise -= charge;
    const purchase: FakePurchase = {
      order_id: `ORD${hex(5).toUpperCase()}`,
      bot_id: `BOT${hex(5).toUpperCase()}`,
      did,
      application_id: app.application_id,
      voice_url: String(body.voice_url),
      months,
      expires_at: new Date(Date.now() + months * 30 * DAY_MS).toISOString(),
      renewals: [],
    };
    this.purchases.push(purchase);
    this.bots.set(purchase.bot_id, purchase.voice_url);
    return data(
      { order_id: purchase.order_id, bot_id: purchase.bot_id, did: { ...did, expires_at: purchase.expires_at } },
      201,
    );
  }

  #renew(didId: number, body: Record<string, unknown>): FakeAnswer {
    const purchase = this.purchases.find((p) => p.did.id === didId);
    if (!purchase) return carrierDError(404, 'not_found', 'DID is not on the reseller account');
    const months = Number(body.months);
    if (!Number.isInteger(months) || months < 1)
      return carrierDError(400, 'validation_failed', 'months must be a positive integer');
    const charge = purchase.did.rate_per_month * 100 * months;
    if (charge > this.floatPaise)
      return carrierDError(402, 'insufficient_balance', 'Reseller balance is too low for this renewal');
    this.floatPaise -= charge;
    const purchaseId = `REN${hex(5).toUpperCase()}`;
    purchase.renewals.push(purchaseId);
    purchase.expires_at = new Date(Date.parse(purchase.expires_at) + months * 30 * DAY_MS).toISOString();
    return data({ purchase_id: purchaseId, renewed_at: new Date().toISOString(), expires_at: purchase.expires_at });
  }
}

function view(app: FakeApplication): Record<string, unknown> {
  return {
    application_id: app.application_id,
    customer_ref: app.customer_ref,
    account_type: app.account_type,
    status: app.status,
    step: app.step,
    aadhaar_verified: app.aadhaar_verified,
    rejection_reason: app.rejection_reason,
    submitted_at: app.submitted_at,
    decided_at: app.decided_at,
    updated_at: app.updated_at,
  };
}
