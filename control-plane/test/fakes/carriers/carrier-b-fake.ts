/**
 * Contract fake of carrier-b's REST API (Twilio-style, 2010-04-01), speaking what Parley's adapter uses the way the
 * carrier documents it: HTTP basic auth AccountSid:AuthToken (401, code 20003 "Authenticate" otherwise; another
 * account's path is 404), IncomingPhoneNumbers.json paged with PageSize/Page/PageToken and next_page_uri (a page
 * asked for without the token of the page before it is refused), AvailablePhoneNumbers/{Country}/{Local|Mobile|
 * TollFree}.json (404 where the type is not offered), purchase and update by form POST, and errors as
 * `{ code, message, more_info, status }`.
 */
import { randomBytes } from 'node:crypto';
import { FakeCarrierServer, type FakeAnswer, type RecordedRequest } from './fake-carrier-server.ts';

const API = '/2010-04-01';
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;
const NUMBER_TYPES = ['Local', 'Mobile', 'TollFree'] as const;
type NumberType = (typeof NUMBER_TYPES)[number];

export interface FakeIncomingNumber {
  sid: string;
  account_sid: string;
  friendly_name: string;
  phone_number: string;
  voice_url: string;
  voice_method: string;
  voice_application_sid: string;
  trunk_sid: string | null;
  capabilities: { voice: boolean; sms: boolean; mms: boolean; fax: boolean };
  status: 'in-use';
  date_created: string;
  date_updated: string;
  uri: string;
}

export interface FakeAvailableNumber {
  friendly_name: string;
  phone_number: string;
  locality: string | null;
  region: string | null;
  iso_country: string;
  postal_code: string | null;
  address_requirements: string;
  beta: boolean;
  capabilities: { voice: boolean; SMS: boolean; MMS: boolean };
}

export interface FakeAccount {
  accountSid: string;
  authToken: string;
}

export interface NumberOptions {
  voiceUrl?: string;
  voiceApplicationSid?: string;
  trunkSid?: string;
  friendlyName?: string;
  voice?: boolean;
}

interface Account extends FakeAccount {
  numbers: FakeIncomingNumber[];
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export class CarrierBFake {
  readonly server: FakeCarrierServer;
  readonly #accounts = new Map<string, Account>();
  readonly #available = new Map<string, FakeAvailableNumber[]>();
  readonly #maxPageSize: number;

  private constructor(server: FakeCarrierServer, maxPageSize: number) {
    this.server = server;
    this.#maxPageSize = maxPageSize;
  }

  /** @param options.maxPageSize the largest page the fake serves (the carrier's is 1,000), to make small accounts page */
  static async start(options: { maxPageSize?: number } = {}): Promise<CarrierBFake> {
    let fake: CarrierBFake | undefined;
    const server = await FakeCarrierServer.start((request) => fake!.#answer(request));
    fake = new CarrierBFake(server, options.maxPageSize ?? MAX_PAGE_SIZE);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  addAccount(): FakeAccount {
    const account: Account = { accountSid: `AC${hex(16)}`, authToken: hex(16), numbers: [] };
    this.#accounts.set(account.accountSid, account);
    return { accountSid: account.accountSid, authToken: account.authToken };
  }

  /** A number on the account, as if bought earlier outside Parley. */
  addNumber(accountSid: string, phoneNumber: string, options: NumberOptions = {}): FakeIncomingNumber {
    const account = this.#account(accountSid);
    const sid = `PN${hex(16)}`;
    const now = new Date().toUTCString();
    const number: FakeIncomingNumber = {
      sid,
      account_sid: accountSid,
      friendly_name: options.friendlyName ?? phoneNumber,
      phone_number: phoneNumber,
      voice_url: options.voiceUrl ?? '',
      voice_method: 'POST',
      voice_application_sid: options.voiceApplicationSid ?? '',
      trunk_sid: options.trunkSid ?? null,
      capabilities: { voice: options.voice ?? true, sms: true, mms: false, fax: false },
      status: 'in-use',
      date_created: now,
      date_updated: now,
      uri: `${API}/Accounts/${accountSid}/IncomingPhoneNumbers/${sid}.json`,
    };
    account.numbers.push(number);
    return number;
  }

  /** Releases a number from the account (as the customer might in the carrier's console). */
  removeNumber(accountSid: string, phoneNumber: string): void {
    const account = this.#account(accountSid);
    account.numbers = account.numbers.filter((n) => n.phone_number !== phoneNumber);
  }

  numbers(accountSid: string): FakeIncomingNumber[] {
    return this.#account(accountSid).numbers;
  }

  /** Puts a number up for sale. */
  offer(
    country: string,
    type: NumberType,
    phoneNumber: string,
    details: { locality?: string; region?: string } = {},
  ): void {
    const key = `${country}/${type}`;
    const list = this.#available.get(key) ?? [];
    list.push({
      friendly_name: phoneNumber,
      phone_number: phoneNumber,
      locality: details.locality ?? null,
      region: details.region ?? null,
      iso_country: country,
      postal_code: null,
      address_requirements: 'none',
      beta: false,
      capabilities: { voice: true, SMS: true, MMS: false },
    });
    this.#available.set(key, list);
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #account(accountSid: string): Account {
    const account = this.#accounts.get(accountSid);
    if (!account) throw new Error(`no fake carrier-b account ${accountSid}`);
    return account;
  }

  #answer(request: RecordedRequest): FakeAnswer {
    const match = /^\/2010-04-01\/Accounts\/([^/]+)(\/.*)$/.exec(request.path);
    if (!match) return notFound(request.path);
    const auth = request.basicAuth;
    const caller = auth && this.#accounts.get(auth.user);
    if (!caller || caller.authToken !== auth.password) return error(401, 20003, 'Authenticate');
    if (match[1] !== caller.accountSid) return notFound(request.path);
    const rest = match[2]!;
    if (rest === '/IncomingPhoneNumbers.json') {
      if (request.method === 'GET') return this.#list(caller, request);
      if (request.method === 'POST') return this.#purchase(caller, request);
    }
    const update = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(rest);
    if (update && request.method === 'POST') return this.#update(caller, update[1]!, request);
    const search = /^\/AvailablePhoneNumbers\/([A-Z]{2})\/(\w+)\.json$/.exec(rest);
    if (search && request.method === 'GET') return this.#search(search[1]!, search[2]!, request);
    return notFound(request.path);
  }

  #list(account: Account, request: RecordedRequest): FakeAnswer {
    const size = Math.min(Number(request.query.PageSize ?? DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE, this.#maxPageSize);
    const page = Number(request.query.Page ?? 0);
    if (!Number.isInteger(size) || size < 1 || !Number.isInteger(page) || page < 0)
      return error(400, 20001, 'Invalid paging parameters');
    const filter = request.query.PhoneNumber;
    const items = account.numbers.filter((n) => !filter || n.phone_number.includes(filter));
    if (page > 0 && request.query.PageToken !== pageToken(items, page, size))
      return error(400, 20001, 'Invalid PageToken');
    const slice = items.slice(page * size, (page + 1) * size);
    const base = `${API}/Accounts/${account.accountSid}/IncomingPhoneNumbers.json`;
    const more = (page + 1) * size < items.length;
    return {
      status: 200,
      body: {
        first_page_uri: `${base}?PageSize=${size}&Page=0`,
        next_page_uri: more
          ? `${base}?PageSize=${size}&Page=${page + 1}&PageToken=${pageToken(items, page + 1, size)}`
          : null,
        previous_page_uri: null,
        page,
        page_size: size,
        start: page * size,
        end: page * size + Math.max(slice.length - 1, 0),
        uri: `${base}?PageSize=${size}&Page=${page}`,
        incoming_phone_numbers: slice,
      },
    };
  }

  #purchase(account: Account, request: RecordedRequest): FakeAnswer {
    const phoneNumber = request.body.PhoneNumber;
    if (typeof phoneNumber !== 'string' || !phoneNumber)
      return error(400, 21451, 'PhoneNumber or AreaCode is required');
    const voiceUrl = request.body.VoiceUrl;
    if (voiceUrl !== undefined && !isUrl(voiceUrl))
      return error(400, 21502, `VoiceUrl is not a valid URL: ${String(voiceUrl)}`);
    const listing = [...this.#available].find(([, list]) => list.some((n) => n.phone_number === phoneNumber));
    if (!listing) return error(400, 21422, `PhoneNumber ${phoneNumber} is not available`);
    listing[1].splice(
      listing[1].findIndex((n) => n.phone_number === phoneNumber),
      1,
    );
    const bought = this.addNumber(account.accountSid, phoneNumber, {
      voiceUrl: typeof voiceUrl === 'string' ? voiceUrl : undefined,
    });
    if (typeof request.body.VoiceMethod === 'string') bought.voice_method = request.body.VoiceMethod;
    return { status: 201, body: bought };
  }

  #update(account: Account, sid: string, request: RecordedRequest): FakeAnswer {
    const number = account.numbers.find((n) => n.sid === sid);
    if (!number) return notFound(request.path);
    const { VoiceUrl, VoiceMethod, VoiceApplicationSid, TrunkSid, FriendlyName } = request.body;
    if (VoiceUrl !== undefined && VoiceUrl !== '' && !isUrl(VoiceUrl))
      return error(400, 21502, `VoiceUrl is not a valid URL: ${String(VoiceUrl)}`);
    if (typeof VoiceUrl === 'string') number.voice_url = VoiceUrl;
    if (typeof VoiceMethod === 'string') number.voice_method = VoiceMethod;
    if (typeof VoiceApplicationSid === 'string') number.voice_application_sid = VoiceApplicationSid;
    if (typeof TrunkSid === 'string') number.trunk_sid = TrunkSid === '' ? null : TrunkSid;
    if (typeof FriendlyName === 'string') number.friendly_name = FriendlyName;
    number.date_updated = new Date().toUTCString();
    return { status: 200, body: number };
  }

  #search(country: string, type: string, request: RecordedRequest): FakeAnswer {
    const list = (NUMBER_TYPES as readonly string[]).includes(type)
      ? this.#available.get(`${country}/${type}`)
      : undefined;
    if (!list) return notFound(request.path);
    const size = Math.min(Number(request.query.PageSize ?? DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
    const { AreaCode: areaCode, Contains: contains, VoiceEnabled: voiceEnabled } = request.query;
    const pattern = contains ? containsPattern(contains) : undefined;
    const found = list.filter(
      (n) =>
        (!areaCode || n.phone_number.replace(/^\+1/, '').startsWith(areaCode)) &&
        (!pattern || pattern.test(n.phone_number.slice(1))) &&
        (voiceEnabled !== 'true' || n.capabilities.voice),
    );
    return { status: 200, body: { uri: request.path, available_phone_numbers: found.slice(0, size) } };
  }
}

/** The token of a page: the sid of the last number on the page before it. */
function pageToken(items: readonly FakeIncomingNumber[], page: number, size: number): string {
  return `PA${items[page * size - 1]?.sid ?? 'end'}`;
}

/** Contains: digits, letters as on a phone keypad, `*` for any digit. */
function containsPattern(contains: string): RegExp {
  const keypad: Record<string, string> = {
    abc: '2',
    def: '3',
    ghi: '4',
    jkl: '5',
    mno: '6',
    pqrs: '7',
    tuv: '8',
    wxyz: '9',
  };
  const digit = (c: string) => Object.entries(keypad).find(([letters]) => letters.includes(c.toLowerCase()))?.[1] ?? c;
  return new RegExp([...contains].map((c) => (c === '*' ? '\\d' : digit(c))).join(''));
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function error(status: number, code: number, message: string): FakeAnswer {
  return { status, body: { code, message, more_info: `https://carrier-b.invalid/docs/errors/${code}`, status } };
}

function notFound(path: string): FakeAnswer {
  return error(404, 20404, `The requested resource ${path} was not found`);
}

/** A carrier-b error body, for tests injecting faults with FakeCarrierServer.fail. */
export function carrierBError(status: number, code: number, message: string): FakeAnswer {
  return error(status, code, message);
}
