/**
 * The carrier webhooks fuzzed with requests that pass the signature check (issue 23, the other doors): the
 * organisation has a carrier-b account whose token the test knows, so every fuzzed form — parameters the carrier
 * sends (CallSid, CallStatus, From, To, AnsweredBy, SipResponseCode…) with valid-ish or hostile values, and
 * unknown ones — is signed as the carrier would sign it, and reaches the call-status and inbound-call code.
 * rest-fuzz.test.ts covers the same routes unsigned. Every answer must pass answer-checks.ts (a carrier's refusal
 * document stands for the envelope), and the call stays readable through the API afterwards: nothing half-written.
 *
 * Long run: PARLEY_FUZZ_RUNS=2000 PARLEY_FUZZ_SEED=$RANDOM npx vitest run test/fuzz/webhook-fuzz.test.ts
 */
import fc from 'fast-check';
import { twilioSignature } from '@parley/engine/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { IntegrationStore } from '../../src/telephony/integration-repository.ts';
import { PUBLIC_URL, startTestApp } from '../support/app.ts';
import { seedAgent, seedCall, seedOrganisation, seedPhoneNumber } from '../support/seed.ts';
import { isCarrierDocument, problemsOf } from './answer-checks.ts';
import { HOSTILE_TEXT } from './hostile-values.ts';

const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.PARLEY_FUZZ_SEED ?? 20261127);

const ACCOUNT_SID = `AC${'1'.repeat(32)}`;
const AUTH_TOKEN = 'fuzz-auth-token';
const OUR_NUMBER = '+14155550142';

const t = await startTestApp();
afterAll(() => t.close());
const org = await seedOrganisation(t.db.sql, 'Webhook fuzz');
await new IntegrationStore(t.secrets).save(t.db.sql, {
  organisationId: org.organisationId,
  provider: 'carrier-b',
  accountRef: ACCOUNT_SID,
  config: {},
  credentials: { account_sid: ACCOUNT_SID, auth_token: AUTH_TOKEN },
});
await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-b', phoneNumber: OUR_NUMBER });
const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
  call_type: 'sip',
  call_direction: 'OUTBOUND',
  call_status: 'INITIATED',
  meta_data: { carrier: 'carrier-b', carrierCallId: 'CA1' },
});

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_TEXT.filter((v) => v.length < 2000)) },
);
const form = fc.record(
  {
    AccountSid: fc.oneof(fc.constant(ACCOUNT_SID), text),
    CallSid: fc.oneof(fc.constant('CA1'), text),
    CallStatus: fc.oneof(
      fc.constantFrom('queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'),
      text,
    ),
    From: fc.oneof(fc.constantFrom('+14155550100', OUR_NUMBER), text),
    To: fc.oneof(fc.constantFrom(OUR_NUMBER, '+14155550100'), text),
    AnsweredBy: fc.oneof(fc.constantFrom('human', 'machine_start', 'fax', 'unknown'), text),
    SipResponseCode: fc.oneof(fc.constantFrom('200', '486', '603'), text),
    CallDuration: fc.oneof(fc.nat().map(String), text),
    Unknown: text,
  },
  { requiredKeys: [] },
);
const paths = [
  `/webhooks/carrier-b/status/${callId}`,
  `/webhooks/carrier-b/answer/${callId}`,
  `/webhooks/carrier-b/dial/${callId}`,
  '/webhooks/carrier-b/voice',
  '/webhooks/carrier-b/hangup',
];

describe('carrier webhooks, signed', () => {
  paths.forEach((path, index) => {
    it(`POST ${path.replace(callId, ':callId')}`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(form, async (params) => {
          const fields = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
          const started = performance.now();
          const res = await t.app.inject({
            method: 'POST',
            url: path,
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'x-twilio-signature': twilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${path}`, fields),
            },
            payload: new URLSearchParams(fields).toString(),
          });
          const answer = {
            statusCode: res.statusCode,
            headers: res.headers,
            body: res.body,
            elapsedMs: performance.now() - started,
          };
          const problems = problemsOf(answer, { ownRefusals: isCarrierDocument });
          const read = await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${callId}` });
          if (read.statusCode !== 200)
            problems.push(`the call is no longer readable: ${read.statusCode} ${read.body.slice(0, 200)}`);
          if (problems.length)
            throw new Error(`${problems.join('; ')}\n  form: ${JSON.stringify(fields).slice(0, 400)}`);
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
    });
  });

  it('signed requests get past the signature check (else this fuzzes only the 403)', async () => {
    const fields = { CallSid: 'CA1', CallStatus: 'ringing', AccountSid: ACCOUNT_SID };
    const path = `/webhooks/carrier-b/status/${callId}`;
    const res = await t.app.inject({
      method: 'POST',
      url: path,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${path}`, fields),
      },
      payload: new URLSearchParams(fields).toString(),
    });
    expect(res.statusCode).not.toBe(403);
  });
});
