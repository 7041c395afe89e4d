/**
 * The carrier webhooks fuzzed with requests that pass each carrier's own check (issue 23, the other doors): the
 * organisation has an account at each voice carrier whose secret the test knows, so every fuzzed form — the
 * parameters that carrier sends (its call id, status, numbers, hang-up causes…) with valid-ish or hostile values,
 * and unknown ones — arrives as the carrier would send it and reaches the call-status and inbound-call code:
 * carrier-a signed X-Plivo-Signature-V3 with a nonce, carrier-b X-Twilio-Signature (both signed by the carrier
 * simulator's own implementations), carrier-c with the URL token Parley gave it. rest-fuzz.test.ts covers the same
 * routes unsigned. Every answer must pass answer-checks.ts (a carrier's refusal document stands for the envelope),
 * and the call stays readable through the API afterwards: nothing half-written.
 *
 * Long run: PARLEY_FUZZ_RUNS=2000 PARLEY_FUZZ_SEED=$RANDOM npx vitest run test/fuzz/webhook-fuzz.test.ts
 */
import fc from 'fast-check';
import { plivoNonce, plivoV3Signature, twilioSignature } from '@parley/engine/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { withCarrierCToken } from '../../src/carriers/carrier-c/voice.ts';
import { IntegrationStore } from '../../src/telephony/integration-repository.ts';
import { PUBLIC_URL, startTestApp } from '../support/app.ts';
import { seedAgent, seedCall, seedOrganisation, seedPhoneNumber } from '../support/seed.ts';
import { isCarrierDocument, problemsOf } from './answer-checks.ts';
import { HOSTILE_TEXT } from './hostile-values.ts';

const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 40);
const SEED = Number(process.env.PARLEY_FUZZ_SEED ?? 20261127);

const SECRET = 'fuzz-secret-token';

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TEXT.filter((v) => v.length < 2000)) },
);
const either = (values: string[]) => fc.oneof(fc.constantFrom(...values), text);

/** What one carrier sends, and how it makes a request pass Parley's check. */
interface CarrierCase {
  carrier: 'carrier-a' | 'carrier-b' | 'carrier-c';
  accountRef: string;
  credentials: Record<string, string>;
  ourNumber: string;
  /** The carrier's id of the seeded call. */
  callRef: string;
  form(callRef: string, ourNumber: string): fc.Arbitrary<Record<string, unknown>>;
  /** The URL to request and its headers, as the carrier would send `fields` to `path`. */
  sign(path: string, fields: Record<string, string>): { url: string; headers: Record<string, string> };
}

const CASES: CarrierCase[] = [
  {
    carrier: 'carrier-a',
    accountRef: 'MAFUZZ0000000000000A',
    credentials: { auth_id: 'MAFUZZ0000000000000A', auth_token: SECRET },
    ourNumber: '+14155550141',
    callRef: 'uuid-1',
    form: (callRef, ourNumber) =>
      fc.record(
        {
          CallUUID: either([callRef]),
          CallStatus: either(['ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'cancel']),
          Event: either(['StartApp', 'Hangup', 'StartStream', 'StopStream']),
          From: either(['14155550100', ourNumber.slice(1)]),
          To: either([ourNumber.slice(1), '14155550100']),
          HangupCause: either(['NORMAL_CLEARING', 'USER_BUSY']),
          HangupCauseName: either(['Normal Hangup', 'Busy Line']),
          Unknown: text,
        },
        { requiredKeys: [] },
      ),
    sign: (path, fields) => {
      const nonce = plivoNonce();
      return {
        url: path,
        headers: {
          'x-plivo-signature-v3': plivoV3Signature(SECRET, 'POST', `${PUBLIC_URL}${path}`, nonce, fields),
          'x-plivo-signature-v3-nonce': nonce,
        },
      };
    },
  },
  {
    carrier: 'carrier-b',
    accountRef: `AC${'1'.repeat(32)}`,
    credentials: { account_sid: `AC${'1'.repeat(32)}`, auth_token: SECRET },
    ourNumber: '+14155550142',
    callRef: 'CA1',
    form: (callRef, ourNumber) =>
      fc.record(
        {
          AccountSid: either([`AC${'1'.repeat(32)}`]),
          CallSid: either([callRef]),
          CallStatus: either([
            'queued',
            'ringing',
            'in-progress',
            'completed',
            'busy',
            'failed',
            'no-answer',
            'canceled',
          ]),
          From: either(['+14155550100', ourNumber]),
          To: either([ourNumber, '+14155550100']),
          AnsweredBy: either(['human', 'machine_start', 'fax', 'unknown']),
          SipResponseCode: either(['200', '486', '603']),
          CallDuration: fc.oneof(fc.nat().map(String), text),
          Unknown: text,
        },
        { requiredKeys: [] },
      ),
    sign: (path, fields) => ({
      url: path,
      headers: { 'x-twilio-signature': twilioSignature(SECRET, `${PUBLIC_URL}${path}`, fields) },
    }),
  },
  {
    carrier: 'carrier-c',
    accountRef: 'fuzz-sid',
    credentials: { account_sid: 'fuzz-sid', api_key: 'fuzz-key', api_token: SECRET },
    ourNumber: '+914412345678',
    callRef: 'exo-1',
    form: (callRef, ourNumber) =>
      fc.record(
        {
          CallSid: either([callRef]),
          Status: either(['ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled']),
          EventType: either(['answered', 'terminal']),
          CallFrom: either(['04412345000', '+914412345000']),
          CallTo: either([`0${ourNumber.slice(3)}`, ourNumber]),
          From: either(['04412345000']),
          To: either([`0${ourNumber.slice(3)}`]),
          Unknown: text,
        },
        { requiredKeys: [] },
      ),
    // Parley gives carrier-c each URL with its token; the carrier sends it back as it was given.
    sign: (path) => {
      const url = new URL(withCarrierCToken(SECRET, `${PUBLIC_URL}${path}`));
      return { url: `${url.pathname}${url.search}`, headers: {} };
    },
  },
];

const t = await startTestApp();
afterAll(() => t.close());

/** Per carrier: an organisation with an account there, a number, an agent and one outbound call in progress. */
const seeded = await Promise.all(
  CASES.map(async (c) => {
    const org = await seedOrganisation(t.db.sql, `Webhook fuzz ${c.carrier}`);
    await new IntegrationStore(t.secrets).save(t.db.sql, {
      organisationId: org.organisationId,
      provider: c.carrier,
      accountRef: c.accountRef,
      config: {},
      credentials: c.credentials,
    });
    await seedPhoneNumber(t.db.sql, org.organisationId, { provider: c.carrier, phoneNumber: c.ourNumber });
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_type: 'sip',
      call_direction: 'OUTBOUND',
      call_status: 'INITIATED',
      meta_data: { carrier: c.carrier, carrierCallId: c.callRef },
    });
    return { ...c, key: org.key, callId };
  }),
);

async function send(c: (typeof seeded)[number], path: string, fields: Record<string, string>) {
  const signed = c.sign(path, fields);
  return t.app.inject({
    method: 'POST',
    url: signed.url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...signed.headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

describe.each(seeded)('$carrier webhooks, as the carrier sends them', (c) => {
  const paths = [
    `/webhooks/${c.carrier}/status/${c.callId}`,
    `/webhooks/${c.carrier}/answer/${c.callId}`,
    `/webhooks/${c.carrier}/dial/${c.callId}`,
    `/webhooks/${c.carrier}/voice`,
    `/webhooks/${c.carrier}/hangup`,
  ];

  paths.forEach((path, index) => {
    it(`POST ${path.replace(c.callId, ':callId')}`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(c.form(c.callRef, c.ourNumber), async (params) => {
          const fields = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
          const started = performance.now();
          const res = await send(c, path, fields);
          const answer = {
            statusCode: res.statusCode,
            headers: res.headers,
            body: res.body,
            elapsedMs: performance.now() - started,
          };
          const problems = problemsOf(answer, { ownRefusals: isCarrierDocument });
          const read = await t.call(c.key, { method: 'GET', url: `/api/v1/voice-sessions/${c.callId}` });
          if (read.statusCode !== 200)
            problems.push(`the call is no longer readable: ${read.statusCode} ${read.body.slice(0, 200)}`);
          if (problems.length)
            throw new Error(`${problems.join('; ')}\n  form: ${JSON.stringify(fields).slice(0, 400)}`);
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
    });
  });

  it('a request made as the carrier makes it gets past the check (else this fuzzes only the 403)', async () => {
    const path = `/webhooks/${c.carrier}/status/${c.callId}`;
    const fields = { CallUUID: c.callRef, CallSid: c.callRef, CallStatus: 'ringing', Status: 'ringing' };
    expect((await send(c, path, fields)).statusCode).not.toBe(403);
    // …and the same request with a wrong secret does not.
    const forged = await t.app.inject({
      method: 'POST',
      url: `${path}?token=forged`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': 'forged',
        'x-plivo-signature-v3': 'forged',
        'x-plivo-signature-v3-nonce': '12345678901234567890',
      },
      payload: new URLSearchParams(fields).toString(),
    });
    expect(forged.statusCode).toBe(403);
  });
});
