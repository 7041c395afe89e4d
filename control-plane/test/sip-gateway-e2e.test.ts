/**
 * A SIP call end to end, nothing stood in for: SIPp (a real UAC) calls the real SIP gateway with a flite sentence
 * as G.711 RTP; the gateway offers the INVITE on `v1.sip.inbound`, where the control plane's responder matches the
 * INBOUND SIP configuration (its number, its trunk's source 127.0.0.1), admits, records and dispatches the call to
 * a real engine role (flite, pocketsphinx, the LLM worker against the fake OpenAI-compatible server); the media
 * bridge carries the audio; the event persister writes what the engine reports. After SIPp's BYE the call record
 * shows the caller's words and the agent's in its transcript (`GET /call-history/sessions/room/{room}/transcripts`).
 */
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { startSipGatewayRole, type SipGateway, type SipGatewayRole } from '@parley/sip-gateway';
import { fliteSpeech8k, freeMediaPort, rtpPackets, runSipp, writePcap } from '@parley/sip-gateway/testing';
import { CallEventPersister } from '../src/calls/events/call-event-persister.ts';
import { SipInboundResponder } from '../src/calls/jobs/sip-inbound-responder.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { scrape } from './support/metrics.ts';
import { seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createSipConfiguration, createTrunk, createVoiceAgent } from './support/sip.ts';
import {
  createIsolatedBus,
  OFFLINE_SPEECH,
  startTestLlm,
  startTestTts,
  TEST_LLM_MODEL,
  type TestLlm,
} from './support/workers.ts';

const SENTENCE = 'I would like to book an appointment for tomorrow morning.';

let bus: Bus;
let t: TestApp;
let org: SeededOrganisation;
let engine: EngineRole;
let llm: TestLlm;
let tts: WorkerRoleHandle;
let stt: WorkerRoleHandle;
let responder: SipInboundResponder;
let persister: CallEventPersister;
let role: SipGatewayRole;
let gateway: SipGateway;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-sip-e2e-'));
  bus = await createIsolatedBus();
  t = await startTestApp({ bus });
  responder = new SipInboundResponder(t.app.phoneCalls.sipCalls).listen(bus);
  persister = new CallEventPersister(t.db.sql, () => {}).listen(bus);
  tts = await startTestTts(bus);
  stt = await startSttWorkerRole(OFFLINE_SPEECH, bus, () => {});
  llm = await startTestLlm(bus);
  engine = await startEngineRole(
    {
      ...OFFLINE_SPEECH,
      vad: 'energy',
      llm: { baseUrl: llm.fake.baseUrl, apiKey: 'sk-test-key', model: TEST_LLM_MODEL },
    },
    bus,
    () => {},
  );
  const rtpPortMin = 46_000 + Math.floor(Math.random() * 40) * 50;
  // The role, as `parley start` runs it: the gateway and its health port, where /metrics is scraped.
  role = await startSipGatewayRole(
    { host: '127.0.0.1', sipPort: 0, rtpPortMin, rtpPortMax: rtpPortMin + 19, healthPort: 0 },
    bus,
    () => {},
  );
  gateway = role.gateway;
  org = await seedOrganisation(t.db.sql, 'Clinic');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
}, 60_000);

afterAll(async () => {
  await role?.close();
  await responder?.close();
  await engine?.close();
  await llm?.close();
  await stt?.close();
  await tts?.close();
  await persister?.close();
  await t?.close();
  await bus?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a SIP call from SIPp through the gateway, the control plane and the engine', () => {
  it('is answered by the configuration’s agent and leaves its transcript on the call record', async () => {
    const agentId = await createVoiceAgent(t, org.key);
    const trunk = await createTrunk(t, org.key, { sourceAddresses: ['127.0.0.1/32'] });
    const config = await createSipConfiguration(t, org.key, {
      sipTrunkId: trunk.id,
      type: 'INBOUND',
      agentId,
      phoneNumber: '+14155550188',
    });
    llm.fake.chat.enqueue({ tokens: ['Of course, ', 'what ', 'time ', 'suits ', 'you?'] });
    const pcap = join(dir, 'caller.pcap');
    await writePcap(pcap, rtpPackets(await fliteSpeech8k(dir, SENTENCE), { leadMs: 200, tailMs: 1_500 }));

    // The gateway's /metrics, scraped while the call runs: its leg shows, and an RTP port is taken.
    const metricsUrl = `http://127.0.0.1:${role.healthPort}`;
    let busiest = { calls: 0, portsFree: Number.POSITIVE_INFINITY };
    const watching = setInterval(() => {
      void scrape(metricsUrl).then(
        (m) => {
          busiest = {
            calls: Math.max(busiest.calls, m.value('parley_sip_active_calls')),
            portsFree: Math.min(busiest.portsFree, m.value('parley_rtp_ports_free')),
          };
        },
        () => {}, // the role closing under a late scrape: the assertions below read what was seen
      );
    }, 250);
    onTestFinished(() => clearInterval(watching));
    const sipp = await runSipp({
      scenario: 'uac-pcap.xml',
      target: gateway.sipPort,
      dir,
      service: config.phoneNumber,
      values: { PCAP: pcap, HOLD_MS: 10_000, MEDIA_PORT: await freeMediaPort() },
      timeoutMs: 40_000,
    });
    expect(sipp.errors, sipp.stdout).toBe('');
    expect(sipp.code, sipp.stdout).toBe(0);

    const [call] = await t.db.sql<{ id: string; room_name: string; call_type: string; sip_configuration_id: string }[]>`
      select id, room_name, call_type, sip_configuration_id from call_records
      where organisation_id = ${org.organisationId} and calling_number = ${config.phoneNumber}`;
    expect(call).toMatchObject({ call_type: 'sip', sip_configuration_id: config.id });
    const transcript = async () => {
      const res = await t.call(org.key, {
        method: 'GET',
        url: `/api/v1/call-history/sessions/room/${call!.room_name}/transcripts`,
      });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data.transcripts as { speaker: string; text: string }[]).map((l) => `${l.speaker}: ${l.text}`);
    };
    await expect
      .poll(async () => (await transcript()).join('\n'), { timeout: 20_000, interval: 250 })
      .toMatch(/user: .*(appointment|book|tomorrow|morning)/i);
    // The greeting first (cut short where the caller barged in); the caller's words went on to the language model.
    const lines = await transcript();
    expect(lines[0]).toMatch(/^assistant: Hello/);
    await expect
      .poll(() => JSON.stringify(llm.fake.chat.requests.map((r) => r.body.messages)), { timeout: 10_000 })
      .toMatch(/appointment|book|tomorrow|morning/i);
    await expect
      .poll(async () => (await t.db.sql`select ended_at from call_records where id = ${call!.id}`)[0]!.ended_at, {
        timeout: 20_000,
      })
      .not.toBeNull();
    expect(gateway.health).toMatchObject({ activeCalls: 0, rtpPortsFree: gateway.health.rtpPortsTotal });
    clearInterval(watching);
    const after = await scrape(metricsUrl);
    expect(busiest.calls).toBe(1);
    expect(busiest.portsFree).toBe(after.value('parley_rtp_ports') - 1);
    expect(after.value('parley_sip_active_calls')).toBe(0);
    expect(after.value('parley_rtp_ports_free')).toBe(after.value('parley_rtp_ports'));
    expect(after.value('parley_sip_messages_total', { kind: 'received' })).toBeGreaterThanOrEqual(3); // INVITE, ACK, BYE
  }, 90_000);
});
