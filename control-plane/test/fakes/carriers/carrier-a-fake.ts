/**
 * Contract fake of carrier-a's REST API (Plivo-style, v1), speaking what Parley's adapter uses the way the carrier
 * documents it: HTTP basic auth auth_id:auth_token on /v1/Account/{auth_id}/… (401 `{ api_id, error }` otherwise);
 * Number/ and Application/ lists paged by limit (at most 20) and offset with meta {limit, next, offset, previous,
 * total_count}; one number or application by id; an application created by POST (app_name of letters, digits, `-`
 * and `_`; answer_url required; 201 `{ api_id, app_id, message: "created" }`) and updated by POST (202 "changed"); a
 * number updated by POST with app_id (202 "changed"); numbers written without `+`, `application` as the path of its
 * application or null, and `sub_account` set on numbers of subaccounts. JSON bodies both ways. Renting: the carrier's
 * inventory searched by GET PhoneNumber/ (country_iso required, pattern a prefix after the country code, limit ≤ 20),
 * a number rented by POST PhoneNumber/{number}/ (201 `{ status: "fulfilled", numbers: [{ number, status: "Success" }] }`,
 * 404 when not offered) and given back by DELETE Number/{number}/ (204).
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { FakeCarrierServer, type FakeAnswer, type RecordedRequest } from './fake-carrier-server.ts';

/** The carrier's largest page. */
const MAX_LIMIT = 20;
const APP_NAME = /^[A-Za-z0-9_-]+$/;
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export interface FakeAccountNumber {
  number: string;
  alias: string | null;
  sub_account: string | null;
  added_on: string;
  application: string | null;
  carrier: string;
  region: string;
  number_type: string;
  monthly_rental_rate: string;
  renewal_date: string;
  sms_enabled: boolean;
  sms_rate: string;
  mms_enabled: boolean;
  mms_rate: string;
  voice_enabled: boolean;
  voice_rate: string;
  resource_uri: string;
  /** Set when the number answers through a trunk rather than an application. */
  object_type?: string;
  object_id?: string;
}

export interface FakeApplication {
  app_id: string;
  app_name: string;
  answer_url: string;
  answer_method: string;
  hangup_url: string;
  hangup_method: string;
  fallback_answer_url: string;
  fallback_method: string;
  message_url: string;
  message_method: string;
  default_app: boolean;
  default_endpoint_app: boolean;
  enabled: boolean;
  public_uri: boolean;
  sip_uri: string;
  sub_account: string | null;
  log_incoming_messages: boolean;
  resource_uri: string;
}

export interface FakeCarrierAAccount {
  authId: string;
  authToken: string;
}

export interface NumberOptions {
  /** The application answering its calls: an app_id of the account. */
  appId?: string;
  /** A subaccount auth_id (addSubaccount): the number belongs to that subaccount. */
  subaccount?: string;
  voice?: boolean;
  alias?: string;
  numberType?: string;
  region?: string;
  /** Answering through a trunk (object_type trunk) rather than an application. */
  trunkId?: string;
}

/** A number the carrier offers to rent (its search result). */
export interface FakeRentableNumber {
  number: string;
  country: string;
  country_iso: string;
  city: string;
  region: string;
  type: string;
  monthly_rental_rate: string;
  setup_rate: string;
  voice_enabled: boolean;
  sms_enabled: boolean;
  resource_uri: string;
}

interface Account extends FakeCarrierAAccount {
  numbers: FakeAccountNumber[];
  applications: FakeApplication[];
  subaccounts: string[];
}

const authIdOf = (prefix: 'MA' | 'SA') =>
  prefix + Array.from({ length: 18 }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join('');
const today = () => new Date().toISOString().slice(0, 10);

export class CarrierAFake {
  readonly server: FakeCarrierServer;
  readonly #accounts = new Map<string, Account>();
  readonly #maxPageSize: number;
  /** The carrier's stock of numbers to rent, any account may take one. */
  #inventory: FakeRentableNumber[] = [];
  /** Rents answer this carrier error instead (a test's outage), when set. */
  rentFailure: { status: number; error: string } | undefined;

  private constructor(server: FakeCarrierServer, maxPageSize: number) {
    this.server = server;
    this.#maxPageSize = maxPageSize;
  }

  /** @param options.maxPageSize the largest page the fake serves (the carrier's is 20), to make small accounts page */
  static async start(options: { maxPageSize?: number } = {}): Promise<CarrierAFake> {
    let fake: CarrierAFake | undefined;
    const server = await FakeCarrierServer.start((request) => fake!.#answer(request));
    fake = new CarrierAFake(server, options.maxPageSize ?? MAX_LIMIT);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  addAccount(): FakeCarrierAAccount {
    const account: Account = {
      authId: authIdOf('MA'),
      authToken: randomBytes(20).toString('hex'),
      numbers: [],
      applications: [],
      subaccounts: [],
    };
    this.#accounts.set(account.authId, account);
    return { authId: account.authId, authToken: account.authToken };
  }

  /** A subaccount of the main account; its auth_id. */
  addSubaccount(authId: string): string {
    const subaccount = authIdOf('SA');
    this.#account(authId).subaccounts.push(subaccount);
    return subaccount;
  }

  /** An application on the account, as if made by the customer in the carrier's console. */
  addApplication(authId: string, name: string, answerUrl = 'https://customer.example/answer'): FakeApplication {
    const account = this.#account(authId);
    const app = newApplication(account, name, answerUrl);
    account.applications.push(app);
    return app;
  }

  removeApplication(authId: string, appId: string): void {
    const account = this.#account(authId);
    account.applications = account.applications.filter((a) => a.app_id !== appId);
    for (const number of account.numbers)
      if (number.application === applicationPath(account, appId)) number.application = null;
  }

  applications(authId: string): FakeApplication[] {
    return this.#account(authId).applications;
  }

  /** A number on the account (E.164), as if rented earlier outside Parley. */
  addNumber(authId: string, phoneNumber: string, options: NumberOptions = {}): FakeAccountNumber {
    const account = this.#account(authId);
    if (options.subaccount && !account.subaccounts.includes(options.subaccount))
      throw new Error(`no subaccount ${options.subaccount}`);
    if (options.appId && !account.applications.some((a) => a.app_id === options.appId))
      throw new Error(`no application ${options.appId}`);
    const number = phoneNumber.replace(/^\+/, '');
    const entry: FakeAccountNumber = {
      number,
      alias: options.alias ?? null,
      sub_account: options.subaccount ?? null,
      added_on: today(),
      application: options.appId ? applicationPath(account, options.appId) : null,
      carrier: 'Plivo',
      region: options.region ?? 'California, UNITED STATES',
      number_type: options.numberType ?? 'local',
      monthly_rental_rate: '0.50000',
      renewal_date: today(),
      sms_enabled: true,
      sms_rate: '0.00000',
      mms_enabled: false,
      mms_rate: '0.00000',
      voice_enabled: options.voice ?? true,
      voice_rate: '0.00850',
      resource_uri: `${accountPath(account)}/Number/${number}/`,
      ...(options.trunkId ? { object_type: 'trunk', object_id: options.trunkId } : {}),
    };
    account.numbers.push(entry);
    return entry;
  }

  /** Puts numbers (E.164) in the carrier's stock of numbers to rent. */
  offer(countryIso: string, phoneNumbers: readonly string[], region = 'Mumbai'): void {
    for (const phoneNumber of phoneNumbers) {
      const number = phoneNumber.replace(/^\+/, '');
      this.#inventory.push({
        number,
        country: countryIso === 'IN' ? 'INDIA' : countryIso,
        country_iso: countryIso,
        city: region,
        region: countryIso === 'IN' ? 'Maharashtra' : region,
        type: 'local',
        monthly_rental_rate: '1.20000',
        setup_rate: '0.00000',
        voice_enabled: true,
        sms_enabled: false,
        resource_uri: `/v1/PhoneNumber/${number}/`,
      });
    }
  }

  /** Releases a number from the account (as the customer might in the carrier's console). */
  removeNumber(authId: string, phoneNumber: string): void {
    const account = this.#account(authId);
    account.numbers = account.numbers.filter((n) => n.number !== phoneNumber.replace(/^\+/, ''));
  }

  numbers(authId: string): FakeAccountNumber[] {
    return this.#account(authId).numbers;
  }

  /** The number's entry by E.164 value. */
  number(authId: string, phoneNumber: string): FakeAccountNumber {
    const found = this.#account(authId).numbers.find((n) => n.number === phoneNumber.replace(/^\+/, ''));
    if (!found) throw new Error(`no number ${phoneNumber} on ${authId}`);
    return found;
  }

  /** The app_id in a number's `application` path, or null. */
  static appIdOf(number: FakeAccountNumber): string | null {
    return number.application ? /\/Application\/([^/]+)\/$/.exec(number.application)![1]! : null;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #account(authId: string): Account {
    const account = this.#accounts.get(authId);
    if (!account) throw new Error(`no fake carrier-a account ${authId}`);
    return account;
  }

  #answer(request: RecordedRequest): FakeAnswer {
    const match = /^\/v1\/Account\/([^/]+)(\/.*)$/.exec(request.path);
    if (!match) return error(404, 'not found');
    const auth = request.basicAuth;
    const caller = auth && this.#accounts.get(auth.user);
    if (!caller || caller.authToken !== auth.password || match[1] !== caller.authId)
      return error(401, 'authentication failed');
    const rest = match[2]!;
    if (rest === '/Number/' && request.method === 'GET') return this.#list(caller, caller.numbers, 'Number', request);
    const number = /^\/Number\/(\d+)\/$/.exec(rest);
    if (number && request.method === 'GET') return this.#getNumber(caller, number[1]!);
    if (number && request.method === 'POST') return this.#updateNumber(caller, number[1]!, request);
    if (number && request.method === 'DELETE') return this.#releaseNumber(caller, number[1]!);
    if (rest === '/PhoneNumber/' && request.method === 'GET') return this.#searchInventory(request);
    const rentable = /^\/PhoneNumber\/(\d+)\/$/.exec(rest);
    if (rentable && request.method === 'POST') return this.#rent(caller, rentable[1]!, request);
    if (rest === '/Application/' && request.method === 'GET')
      return this.#list(caller, caller.applications, 'Application', request);
    if (rest === '/Application/' && request.method === 'POST') return this.#createApplication(caller, request);
    const app = /^\/Application\/([^/]+)\/$/.exec(rest);
    if (app && request.method === 'GET') return this.#getApplication(caller, app[1]!);
    if (app && request.method === 'POST') return this.#updateApplication(caller, app[1]!, request);
    return error(404, 'not found');
  }

  #list(
    account: Account,
    items: readonly unknown[],
    resource: 'Number' | 'Application',
    request: RecordedRequest,
  ): FakeAnswer {
    const limit = Number(request.query.limit ?? MAX_LIMIT);
    const offset = Number(request.query.offset ?? 0);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return error(400, { limit: [`Ensure this value is between 1 and ${MAX_LIMIT}.`] });
    if (!Number.isInteger(offset) || offset < 0)
      return error(400, { offset: ['Ensure this value is greater than or equal to 0.'] });
    const size = Math.min(limit, this.#maxPageSize);
    const base = `${accountPath(account)}/${resource}/`;
    const link = (at: number) => `${base}?limit=${size}&offset=${at}`;
    return ok(200, {
      meta: {
        limit: size,
        next: offset + size < items.length ? link(offset + size) : null,
        offset,
        previous: offset > 0 ? link(Math.max(offset - size, 0)) : null,
        total_count: items.length,
      },
      objects: items.slice(offset, offset + size),
    });
  }

  #getNumber(account: Account, number: string): FakeAnswer {
    const found = account.numbers.find((n) => n.number === number);
    return found ? ok(200, found) : error(404, 'not found');
  }

  #updateNumber(account: Account, number: string, request: RecordedRequest): FakeAnswer {
    const found = account.numbers.find((n) => n.number === number);
    if (!found) return error(404, 'not found');
    const { app_id: appId, alias } = request.body;
    if (appId !== undefined) {
      if (typeof appId !== 'string' || !account.applications.some((a) => a.app_id === appId))
        return error(400, 'app_id is not a valid application');
      found.application = applicationPath(account, appId);
      delete found.object_type;
      delete found.object_id;
    }
    if (typeof alias === 'string') found.alias = alias;
    return ok(202, { message: 'changed' });
  }

  #releaseNumber(account: Account, number: string): FakeAnswer {
    if (!account.numbers.some((n) => n.number === number)) return error(404, 'not found');
    account.numbers = account.numbers.filter((n) => n.number !== number);
    return { status: 204, body: undefined };
  }

  #searchInventory(request: RecordedRequest): FakeAnswer {
    const countryIso = request.query.country_iso;
    if (typeof countryIso !== 'string' || !/^[A-Z]{2}$/.test(countryIso))
      return error(400, { country_iso: ['This field is required.'] });
    const limit = Number(request.query.limit ?? MAX_LIMIT);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return error(400, { limit: [`Ensure this value is between 1 and ${MAX_LIMIT}.`] });
    const pattern = typeof request.query.pattern === 'string' ? request.query.pattern : '';
    const found = this.#inventory.filter(
      (n) => n.country_iso === countryIso && n.number.slice(countryCodeLength(countryIso)).startsWith(pattern),
    );
    return ok(200, {
      meta: { limit, next: null, offset: 0, previous: null, total_count: found.length },
      objects: found.slice(0, limit),
    });
  }

  #rent(account: Account, number: string, request: RecordedRequest): FakeAnswer {
    if (this.rentFailure) return error(this.rentFailure.status, this.rentFailure.error);
    const offered = this.#inventory.find((n) => n.number === number);
    if (!offered) return error(404, 'Number is not available for purchase');
    const { app_id: appId } = request.body;
    if (appId !== undefined && (typeof appId !== 'string' || !account.applications.some((a) => a.app_id === appId)))
      return error(400, 'app_id is not a valid application');
    this.#inventory = this.#inventory.filter((n) => n !== offered);
    this.addNumber(account.authId, `+${number}`, {
      ...(typeof appId === 'string' ? { appId } : {}),
      region: `${offered.city}, ${offered.country}`,
    });
    return ok(201, { message: 'created', numbers: [{ number, status: 'Success' }], status: 'fulfilled' });
  }

  #createApplication(account: Account, request: RecordedRequest): FakeAnswer {
    const { app_name: name, answer_url: answerUrl } = request.body;
    if (typeof name !== 'string' || !APP_NAME.test(name))
      return error(400, { app_name: ['Only letters, digits, "-" and "_" are allowed.'] });
    if (!isUrl(answerUrl)) return error(400, { answer_url: ['This field is required and must be a valid URL.'] });
    const app = newApplication(account, name, answerUrl as string);
    const problem = applyApplication(app, request.body);
    if (problem) return problem;
    account.applications.push(app);
    return ok(201, { app_id: app.app_id, message: 'created' });
  }

  #getApplication(account: Account, appId: string): FakeAnswer {
    const app = account.applications.find((a) => a.app_id === appId);
    return app ? ok(200, app) : error(404, 'not found');
  }

  #updateApplication(account: Account, appId: string, request: RecordedRequest): FakeAnswer {
    const app = account.applications.find((a) => a.app_id === appId);
    if (!app) return error(404, 'not found');
    return applyApplication(app, request.body) ?? ok(202, { message: 'changed' });
  }
}

/** Digits of the country calling code before a number's own digits (only the countries the tests rent in). */
function countryCodeLength(countryIso: string): number {
  return countryIso === 'US' || countryIso === 'CA' ? 1 : 2;
}

function accountPath(account: Account): string {
  return `/v1/Account/${account.authId}`;
}

function applicationPath(account: Account, appId: string): string {
  return `${accountPath(account)}/Application/${appId}/`;
}

function newApplication(account: Account, name: string, answerUrl: string): FakeApplication {
  // 17 digits, as the carrier's ids are (randomInt stops at 2^48, so in two halves).
  const appId = `${randomInt(10 ** 8, 10 ** 9)}${randomInt(10 ** 7, 10 ** 8)}`;
  return {
    app_id: appId,
    app_name: name,
    answer_url: answerUrl,
    answer_method: 'POST',
    hangup_url: answerUrl,
    hangup_method: 'POST',
    fallback_answer_url: '',
    fallback_method: 'POST',
    message_url: '',
    message_method: 'POST',
    default_app: false,
    default_endpoint_app: false,
    enabled: true,
    public_uri: false,
    sip_uri: `sip:${appId}@app.plivo.com`,
    sub_account: null,
    log_incoming_messages: true,
    resource_uri: applicationPath(account, appId),
  };
}

/** Applies the writable fields of an application create or update; a 400 answer when one is invalid. */
function applyApplication(app: FakeApplication, body: Record<string, unknown>): FakeAnswer | undefined {
  for (const key of ['answer_url', 'hangup_url'] as const) {
    if (body[key] === undefined) continue;
    if (!isUrl(body[key])) return error(400, { [key]: ['Enter a valid URL.'] });
    app[key] = body[key] as string;
  }
  for (const key of ['answer_method', 'hangup_method'] as const) {
    if (body[key] === undefined) continue;
    if (body[key] !== 'GET' && body[key] !== 'POST') return error(400, { [key]: ['Must be GET or POST.'] });
    app[key] = body[key] as string;
  }
  if (body.answer_url !== undefined && body.hangup_url === undefined && app.hangup_url === '')
    app.hangup_url = app.answer_url;
  return undefined;
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function ok(status: number, body: object): FakeAnswer {
  return { status, body: { api_id: randomUUID(), ...body } };
}

function error(status: number, message: string | Record<string, string[]>): FakeAnswer {
  return { status, body: { api_id: randomUUID(), error: message } };
}

/** A carrier-a error body, for tests injecting faults with FakeCarrierServer.fail. */
export function carrierAError(status: number, message: string): FakeAnswer {
  return error(status, message);
}
