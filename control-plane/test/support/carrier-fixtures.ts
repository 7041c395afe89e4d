/**
 * The carriers an organisation connects its own account of (carrier-a, -b, -c), each described once for the shared
 * connect and sync scenarios of telephony-carriers.test.ts: how to make an account on its contract fake
 * (fakes/carriers/), put numbers on it, make a page or the whole account fail, refuse credentials, send a next-page
 * link off the account's own list, and how its answers name the counts. What only one carrier does stays in its own
 * telephony-carrier-<x>.test.ts.
 */
import { flowVoiceUrl } from '../../src/carriers/carrier-c/api.ts';
import type { Carrier } from '../../src/telephony/carrier.ts';
import { carrierAError } from '../fakes/carriers/carrier-a-fake.ts';
import { carrierBError } from '../fakes/carriers/carrier-b-fake.ts';
import { carrierCError } from '../fakes/carriers/carrier-c-fake.ts';
import type { FakeAnswer, FakeCarrierServer, RecordedRequest } from '../fakes/carriers/fake-carrier-server.ts';
import type { TelephonyTestApp } from '../fakes/carriers/telephony-test-app.ts';

/** An account on a carrier's fake: its id, and the connect body that names it with its credentials. */
export interface FakeAccountOf {
  ref: string;
  /** Every credential of the account (none may appear in an answer). */
  secrets: string[];
  /** The connect body with the account's credentials. */
  body: Record<string, unknown>;
}

/** The counts of a connect or sync, named alike for every carrier (see `reports`). */
export interface NeutralCounts {
  remoteCount?: number;
  imported?: number;
  updated?: number;
  /** imported + updated. */
  synced?: number;
  needsSetup?: number;
  skippedOtherProvider?: number;
  deactivated?: number;
  complete?: boolean;
}

export type CountName = keyof NeutralCounts;

export interface CarrierFixture {
  carrier: Carrier;
  /** Another carrier, whose numbers the organisation may have active too. */
  otherCarrier: Carrier;
  /** The label of an account connected without one. */
  defaultLabel: string;
  /** The carrier's connect and sync need a funded wallet. */
  needsWallet: boolean;
  /** A connect may leave out the secret (or every credential) of the account already connected. */
  reusesStoredCredentials: boolean;
  /** The counts each operation's answer reports; the scenarios assert only those. */
  reports: { connect: readonly CountName[]; sync: readonly CountName[] };
  /** The keys of the stored (encrypted) credentials. */
  storedSecretKeys: string[];
  /** E.164 number `i` of a scenario's series (series 0–99, i 0–9), in the carrier's country. */
  phone(series: number, i: number): string;
  server(t: TelephonyTestApp): FakeCarrierServer;
  addAccount(t: TelephonyTestApp): FakeAccountOf;
  /** elsewhere: answering through another application or flow of the customer's (NEEDS_SETUP). */
  addNumber(
    t: TelephonyTestApp,
    account: FakeAccountOf,
    phone: string,
    kind?: 'voice' | 'elsewhere' | 'no-voice',
  ): void;
  removeNumber(t: TelephonyTestApp, account: FakeAccountOf, phone: string): void;
  rename(t: TelephonyTestApp, account: FakeAccountOf, phone: string, name: string): void;
  /** Connect bodies naming the account with a wrong secret, and only by its id (no secret). */
  wrongSecretBody(account: FakeAccountOf): Record<string, unknown>;
  idOnlyBody?(account: FakeAccountOf): Record<string, unknown>;
  /** What the carrier says when it refuses credentials. */
  refusalWords: string;
  /** Requests about the account, and the requests listing its numbers. */
  onAccount(account: FakeAccountOf): (r: RecordedRequest) => boolean;
  lists(account: FakeAccountOf): (r: RecordedRequest) => boolean;
  /** Whether a list request asks for the second page. */
  secondPage(r: RecordedRequest): boolean;
  /** Whether a request carried the account's credentials. */
  authenticated(r: RecordedRequest, account: FakeAccountOf): boolean;
  /** The carrier's answers: an outage, a failed page, refused credentials. */
  down(): FakeAnswer;
  pageFailure(): FakeAnswer;
  refused(): FakeAnswer;
  /** An empty first page whose next link leads off the account's own list. */
  offListPage(): FakeAnswer;
  /** Whether anything was asked off the account's own list. */
  wentOffList(t: TelephonyTestApp): boolean;
  /** The counts of a connect's or sync's `data`. */
  counts(data: Record<string, unknown>): NeutralCounts;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Counts reported flat in `data` (carrier-a and carrier-b). */
function flatCounts(data: Record<string, unknown>): NeutralCounts {
  const { remoteCount, imported, updated, needsSetup, skippedOtherProvider, deactivated, complete } =
    data as NeutralCounts;
  const synced = imported !== undefined && updated !== undefined ? imported + updated : undefined;
  return { remoteCount, imported, updated, synced, needsSetup, skippedOtherProvider, deactivated, complete };
}

/** The counts a whole read reports: every kind of change, and whether the read was complete. */
const FULL_REPORT: readonly CountName[] = [
  'remoteCount',
  'imported',
  'updated',
  'synced',
  'needsSetup',
  'skippedOtherProvider',
  'deactivated',
  'complete',
];

const carrierA: CarrierFixture = {
  carrier: 'carrier-a',
  otherCarrier: 'carrier-b',
  defaultLabel: 'carrier-a account',
  needsWallet: false,
  reusesStoredCredentials: true,
  reports: {
    connect: FULL_REPORT,
    sync: FULL_REPORT,
  },
  storedSecretKeys: ['auth_id', 'auth_token'],
  phone: (series, i) => `+1415555${pad(series, 3)}${i}`,
  server: (t) => t.carrierA.server,
  addAccount(t) {
    const { authId, authToken } = t.carrierA.addAccount();
    return { ref: authId, secrets: [authId, authToken], body: { authId, authToken } };
  },
  addNumber(t, account, phone, kind = 'voice') {
    if (kind === 'no-voice') t.carrierA.addNumber(account.ref, phone, { voice: false });
    else if (kind === 'elsewhere') {
      const ivr = t.carrierA.addApplication(account.ref, 'customer-ivr');
      t.carrierA.addNumber(account.ref, phone, { appId: ivr.app_id });
    } else t.carrierA.addNumber(account.ref, phone);
  },
  removeNumber: (t, account, phone) => t.carrierA.removeNumber(account.ref, phone),
  rename(t, account, phone, name) {
    t.carrierA.number(account.ref, phone).alias = name;
  },
  wrongSecretBody: (account) => ({ authId: account.ref, authToken: 'wrong-token' }),
  // The account's id is read in any letter case.
  idOnlyBody: (account) => ({ authId: account.ref.toLowerCase() }),
  refusalWords: 'authentication failed',
  onAccount: (account) => (r) => r.path.includes(account.ref),
  lists: (account) => (r) => r.method === 'GET' && r.path === `/v1/Account/${account.ref}/Number/`,
  secondPage: (r) => r.query.offset === '2',
  authenticated: (r, account) => r.basicAuth?.user === account.ref && r.basicAuth.password === account.secrets[1],
  down: () => carrierAError(500, 'internal error'),
  pageFailure: () => carrierAError(500, 'internal error'),
  refused: () => carrierAError(401, 'authentication failed'),
  offListPage: () => ({
    status: 200,
    body: {
      api_id: 'x',
      meta: { limit: 2, next: '//evil.example/steal', offset: 0, previous: null, total_count: 9 },
      objects: [],
    },
  }),
  wentOffList: (t) => t.carrierA.server.received((r) => r.path.includes('evil')).length > 0,
  counts: flatCounts,
};

const carrierB: CarrierFixture = {
  carrier: 'carrier-b',
  otherCarrier: 'carrier-a',
  defaultLabel: 'carrier-b account',
  needsWallet: true,
  reusesStoredCredentials: true,
  reports: {
    connect: ['imported', 'updated', 'synced', 'deactivated', 'complete'],
    sync: FULL_REPORT,
  },
  storedSecretKeys: ['account_sid', 'auth_token'],
  phone: (series, i) => `+1415556${pad(series, 3)}${i}`,
  server: (t) => t.carrierB.server,
  addAccount(t) {
    const { accountSid, authToken } = t.carrierB.addAccount();
    return { ref: accountSid, secrets: [accountSid, authToken], body: { accountSid, authToken } };
  },
  addNumber(t, account, phone, kind = 'voice') {
    if (kind === 'no-voice') t.carrierB.addNumber(account.ref, phone, { voice: false });
    else if (kind === 'elsewhere')
      t.carrierB.addNumber(account.ref, phone, { voiceUrl: 'https://elsewhere.example/voice' });
    else t.carrierB.addNumber(account.ref, phone);
  },
  removeNumber: (t, account, phone) => t.carrierB.removeNumber(account.ref, phone),
  rename(t, account, phone, name) {
    t.carrierB.numbers(account.ref).find((n) => n.phone_number === phone)!.friendly_name = name;
  },
  wrongSecretBody: (account) => ({ accountSid: account.ref, authToken: 'wrong-token' }),
  idOnlyBody: (account) => ({ accountSid: account.ref }),
  refusalWords: 'Authenticate',
  onAccount: (account) => (r) => r.path.includes(account.ref),
  lists: (account) => (r) =>
    r.method === 'GET' && r.path === `/2010-04-01/Accounts/${account.ref}/IncomingPhoneNumbers.json`,
  secondPage: (r) => r.query.Page === '1',
  authenticated: (r, account) => r.basicAuth?.user === account.ref && r.basicAuth.password === account.secrets[1],
  down: () => carrierBError(503, 20503, 'Service Unavailable'),
  pageFailure: () => carrierBError(500, 20500, 'Internal Server Error'),
  refused: () => carrierBError(401, 20003, 'Authenticate'),
  offListPage: () => ({ status: 200, body: { incoming_phone_numbers: [], next_page_uri: '//evil.example/steal' } }),
  wentOffList: (t) => t.carrierB.server.received((r) => r.path.includes('evil')).length > 0,
  counts: flatCounts,
};

const carrierC: CarrierFixture = {
  carrier: 'carrier-c',
  otherCarrier: 'carrier-a',
  defaultLabel: 'carrier-c account',
  needsWallet: true,
  reusesStoredCredentials: false,
  // carrier-c answers the spec's `synced` {remoteCount, synced, skipped}, with Parley's further counts.
  reports: {
    connect: ['remoteCount', 'synced', 'needsSetup', 'deactivated', 'complete'],
    sync: ['remoteCount', 'synced', 'needsSetup', 'deactivated', 'complete'],
  },
  storedSecretKeys: ['account_sid', 'api_key', 'api_token'],
  phone: (series, i) => `+9122400${pad(series, 3)}0${i}`,
  server: (t) => t.carrierC.server,
  addAccount(t) {
    const account = t.carrierC.addAccount();
    const { accountSid, apiKey, apiToken, appId, region } = account;
    return {
      ref: accountSid,
      secrets: [accountSid, apiKey, apiToken],
      body: { accountSid, apiKey, apiToken, appId, subdomain: region },
    };
  },
  addNumber(t, account, phone, kind = 'voice') {
    if (kind === 'no-voice') t.carrierC.addNumber(account.ref, phone, { voice: false });
    else if (kind === 'elsewhere') {
      t.carrierC.addNumber(account.ref, phone, { voiceUrl: flowVoiceUrl(account.ref, '1234') });
    } else t.carrierC.addNumber(account.ref, phone);
  },
  removeNumber: (t, account, phone) => t.carrierC.removeNumber(account.ref, phone),
  rename(t, account, phone, name) {
    t.carrierC.number(account.ref, phone).friendly_name = name;
  },
  wrongSecretBody: (account) => ({ ...account.body, apiToken: 'wrong-token' }),
  refusalWords: 'Invalid API Key or Token',
  onAccount: (account) => (r) =>
    r.path.includes(`/Accounts/${account.ref}/`) || r.path.endsWith(`/Accounts/${account.ref}`),
  lists: (account) => (r) =>
    r.method === 'GET' && r.path.endsWith(`/v2_beta/Accounts/${account.ref}/IncomingPhoneNumbers`),
  secondPage: (r) => r.query.Page === '1',
  authenticated: (r, account) =>
    r.basicAuth?.user === account.secrets[1] && r.basicAuth?.password === account.secrets[2],
  down: () => carrierCError(503, 'Service Unavailable'),
  pageFailure: () => carrierCError(500, 'Internal Server Error'),
  refused: () => carrierCError(401, 'Authentication failed. Invalid API Key or Token.', 'UNAUTHORIZED'),
  offListPage: () => ({
    status: 200,
    body: {
      page: 0,
      incoming_phone_numbers: [],
      next_page_uri: 'https://evil.example/v2_beta/Accounts/other/IncomingPhoneNumbers?Page=1',
    },
  }),
  wentOffList: (t) => t.carrierC.server.requests.some((r) => r.path.includes('/Accounts/other/')),
  counts(data) {
    const { remoteCount, synced, needsSetup, deactivated, complete } = data.synced as NeutralCounts;
    return { remoteCount, synced, needsSetup, deactivated, complete };
  },
};

/** The carriers of the shared connect and sync scenarios. */
export const OWN_ACCOUNT_CARRIERS: readonly CarrierFixture[] = [carrierA, carrierB, carrierC];

/** `expected` cut to the counts the fixture's carrier reports for `operation`, with `synced` filled in. */
export function reportedCounts(
  fixture: CarrierFixture,
  operation: 'connect' | 'sync',
  expected: NeutralCounts,
): NeutralCounts {
  const full: NeutralCounts = { ...expected };
  if (full.synced === undefined && full.imported !== undefined && full.updated !== undefined)
    full.synced = full.imported + full.updated;
  return Object.fromEntries(
    Object.entries(full).filter(([name]) => fixture.reports[operation].includes(name as CountName)),
  ) as NeutralCounts;
}
