/**
 * Contract fake of carrier-c's REST API (Exotel-style ExoPhones API, v2_beta), speaking what Parley's adapter uses
 * the way the carrier documents it: HTTP basic auth with the account's API key and token (401 RestException
 * otherwise, also when the path names another account's SID), GET …/IncomingPhoneNumbers paged with Page/PageSize
 * and page metadata whose next_page_uri is an absolute URL on the carrier's internal host, GET and PUT
 * …/IncomingPhoneNumbers/{sid} (PUT takes VoiceUrl, SMSUrl, FriendlyName as a form; a VoiceUrl must start a flow
 * of the account: `http://my.exotel.com/{AccountSid}/exoml/start_voice/{AppId}`), and errors as
 * `{ RestException: { Status, Message, Code } }`.
 *
 * Both regional clusters are served by one server under a path prefix: `/{subdomain}/v2_beta/…` where subdomain is
 * api.exotel.com or api.in.exotel.com. Point PARLEY_CARRIER_C_API_URL at `apiUrl` (`http://127.0.0.1:<port>/{subdomain}`)
 * and the adapter puts the region's host in the placeholder. An account lives in one region: the other one does
 * not know it (401), as with the real clusters.
 */
import { randomBytes } from 'node:crypto';
import { FakeCarrierServer, type FakeAnswer, type RecordedRequest } from './fake-carrier-server.ts';

export const REGIONS = ['api.exotel.com', 'api.in.exotel.com'] as const;
export type Region = (typeof REGIONS)[number];

const API = '/v2_beta';
/** The carrier's documented default page. */
const DEFAULT_PAGE_SIZE = 50;
/** The host the carrier writes into its page links (its documentation shows it). */
const INTERNAL_HOST = 'http://twilix.exotel.com';

export interface FakeExoPhone {
  sid: string;
  account_sid: string;
  date_created: string;
  date_updated: string;
  friendly_name: string;
  phone_number: string;
  voice_url: string | null;
  sms_url: string | null;
  capabilities: { voice: boolean; sms: boolean };
  country: string;
  region: string | null;
  number_type: string;
  uri: string;
}

export interface FakeCarrierCAccount {
  accountSid: string;
  apiKey: string;
  apiToken: string;
  region: Region;
  /** A flow (app) id of the account: numbers may be pointed at it. */
  appId: string;
}

export interface ExoPhoneOptions {
  voiceUrl?: string;
  voice?: boolean;
  friendlyName?: string;
}

interface Account extends Omit<FakeCarrierCAccount, 'appId'> {
  apps: Set<string>;
  numbers: FakeExoPhone[];
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
let nextApp = 227_000;

export class CarrierCFake {
  readonly server: FakeCarrierServer;
  readonly #accounts = new Map<string, Account>();
  readonly #maxPageSize: number;

  private constructor(server: FakeCarrierServer, maxPageSize: number) {
    this.server = server;
    this.#maxPageSize = maxPageSize;
  }

  /** @param options.maxPageSize the largest page the fake serves, to make small accounts page */
  static async start(options: { maxPageSize?: number } = {}): Promise<CarrierCFake> {
    let fake: CarrierCFake | undefined;
    const server = await FakeCarrierServer.start((request) => fake!.#answer(request));
    fake = new CarrierCFake(server, options.maxPageSize ?? Number.MAX_SAFE_INTEGER);
    return fake;
  }

  /** PARLEY_CARRIER_C_API_URL for this fake: the adapter replaces `{subdomain}` with the region's host. */
  get apiUrl(): string {
    return `${this.server.url}/{subdomain}`;
  }

  /** A new account in `region` (default Singapore) with one flow. */
  addAccount(region: Region = REGIONS[0]): FakeCarrierCAccount {
    const account: Account = {
      accountSid: `parley${hex(6)}`,
      apiKey: hex(20),
      apiToken: hex(20),
      region,
      apps: new Set(),
      numbers: [],
    };
    this.#accounts.set(account.accountSid, account);
    return {
      accountSid: account.accountSid,
      apiKey: account.apiKey,
      apiToken: account.apiToken,
      region,
      appId: this.addApp(account.accountSid),
    };
  }

  /** Another flow on the account; returns its id. */
  addApp(accountSid: string): string {
    const id = String((nextApp += 1));
    this.#account(accountSid).apps.add(id);
    return id;
  }

  /** Issues a new API token (the customer regenerating it in the dashboard): the old one stops working. */
  rotateToken(accountSid: string): string {
    const account = this.#account(accountSid);
    account.apiToken = hex(20);
    return account.apiToken;
  }

  /** An ExoPhone on the account, as if rented earlier outside Parley. */
  addNumber(accountSid: string, phoneNumber: string, options: ExoPhoneOptions = {}): FakeExoPhone {
    const account = this.#account(accountSid);
    const sid = hex(16);
    const now = new Date().toISOString();
    const number: FakeExoPhone = {
      sid,
      account_sid: accountSid,
      date_created: now,
      date_updated: now,
      friendly_name: options.friendlyName ?? phoneNumber.replace(/^\+91/, '0'),
      phone_number: phoneNumber,
      voice_url: options.voiceUrl ?? null,
      sms_url: null,
      capabilities: { voice: options.voice ?? true, sms: true },
      country: 'IN',
      region: 'KA',
      number_type: 'Landline',
      uri: `${API}/Accounts/${accountSid}/IncomingPhoneNumbers/${sid}`,
    };
    account.numbers.push(number);
    return number;
  }

  removeNumber(accountSid: string, phoneNumber: string): void {
    const account = this.#account(accountSid);
    account.numbers = account.numbers.filter((n) => n.phone_number !== phoneNumber);
  }

  numbers(accountSid: string): FakeExoPhone[] {
    return this.#account(accountSid).numbers;
  }

  number(accountSid: string, phoneNumber: string): FakeExoPhone {
    const found = this.numbers(accountSid).find((n) => n.phone_number === phoneNumber);
    if (!found) throw new Error(`no fake carrier-c number ${phoneNumber}`);
    return found;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #account(accountSid: string): Account {
    const account = this.#accounts.get(accountSid);
    if (!account) throw new Error(`no fake carrier-c account ${accountSid}`);
    return account;
  }

  #answer(request: RecordedRequest): FakeAnswer {
    const match = /^\/([^/]+)\/v2_beta\/Accounts\/([^/]+)(\/.*)$/.exec(request.path);
    const region = match?.[1];
    if (!match || !(REGIONS as readonly string[]).includes(region!)) return notFound(request.path);
    const auth = request.basicAuth;
    const caller = auth && [...this.#accounts.values()].find((a) => a.region === region && a.apiKey === auth.user);
    if (!caller || caller.apiToken !== auth.password)
      return error(401, 'Authentication failed. Invalid API Key or Token.', 'UNAUTHORIZED');
    if (match[2] !== caller.accountSid)
      return error(401, 'Account SID is invalid or does not match credentials.', 'INVALID_ACCOUNT_SID');
    const rest = match[3]!;
    if (rest === '/IncomingPhoneNumbers' && request.method === 'GET') return this.#list(caller, request);
    const one = /^\/IncomingPhoneNumbers\/([0-9a-f]{32})$/.exec(rest);
    const number = one && caller.numbers.find((n) => n.sid === one[1]);
    if (!number) return notFound(request.path);
    if (request.method === 'GET') return { status: 200, body: number };
    if (request.method === 'PUT') return this.#update(caller, number, request);
    return error(405, 'Method Not Allowed');
  }

  #list(account: Account, request: RecordedRequest): FakeAnswer {
    const size = Math.min(Number(request.query.PageSize ?? DEFAULT_PAGE_SIZE), this.#maxPageSize);
    const page = Number(request.query.Page ?? 0);
    if (!Number.isInteger(size) || size < 1 || !Number.isInteger(page) || page < 0)
      return error(400, 'Invalid Page or PageSize', 'INVALID_PARAMETER');
    const list = `${INTERNAL_HOST}${API}/Accounts/${account.accountSid}/IncomingPhoneNumbers`;
    const more = (page + 1) * size < account.numbers.length;
    return {
      status: 200,
      body: {
        page,
        page_size: size,
        uri: `${list}?Page=${page}&PageSize=${size}`,
        first_page_uri: `${list}?Page=0&PageSize=${size}`,
        next_page_uri: more ? `${list}?Page=${page + 1}&PageSize=${size}` : null,
        previous_page_uri: page > 0 ? `${list}?Page=${page - 1}&PageSize=${size}` : null,
        incoming_phone_numbers: account.numbers.slice(page * size, (page + 1) * size),
      },
    };
  }

  #update(account: Account, number: FakeExoPhone, request: RecordedRequest): FakeAnswer {
    const { VoiceUrl, SMSUrl, FriendlyName } = request.body;
    if (VoiceUrl !== undefined) {
      const app = typeof VoiceUrl === 'string' ? flowOf(VoiceUrl, account.accountSid) : undefined;
      if (!app || !account.apps.has(app)) {
        return error(
          400,
          `VoiceUrl must start a flow of this account: http://my.exotel.com/${account.accountSid}/exoml/start_voice/<app_id>`,
          'INVALID_PARAMETER',
        );
      }
      number.voice_url = VoiceUrl as string;
    }
    if (typeof SMSUrl === 'string') number.sms_url = SMSUrl;
    if (typeof FriendlyName === 'string') number.friendly_name = FriendlyName;
    number.date_updated = new Date().toISOString();
    return { status: 200, body: number };
  }
}

function flowOf(voiceUrl: string, accountSid: string): string | undefined {
  let url: URL;
  try {
    url = new URL(voiceUrl);
  } catch {
    return undefined;
  }
  if (!/^my\.(in\.)?exotel\.(com|in)$/.test(url.hostname)) return undefined;
  return new RegExp(`^/${accountSid}/exoml/start_voice/(\\d+)$`).exec(url.pathname)?.[1];
}

function error(status: number, message: string, code?: string): FakeAnswer {
  return { status, body: { RestException: { Status: status, Message: message, ...(code ? { Code: code } : {}) } } };
}

function notFound(path: string): FakeAnswer {
  return error(404, `The requested resource ${path} was not found`, 'NOT_FOUND');
}

/** A carrier-c error body, for tests injecting faults with FakeCarrierServer.fail. */
export function carrierCError(status: number, message: string, code?: string): FakeAnswer {
  return error(status, message, code);
}
