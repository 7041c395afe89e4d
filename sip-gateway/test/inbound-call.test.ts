/**
 * Inbound SIP calls end to end: SIPp (a real UAC) calls the gateway and plays a flite sentence as G.711 RTP from
 * a pcap this test writes, then two RFC 2833 digits; a stand-in control plane answers `v1.sip.inbound` by
 * dispatching to a real engine role (flite, pocketsphinx, the fake LLM). The engine hears the caller (the
 * transcript), the digits arrive as DTMF, the agent's greeting goes back out as RTP, SIPp's BYE ends the call,
 * and every RTP port is free afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocket, type Socket } from 'node:dgram';
import { join } from 'node:path';
import { decodeMulaw, rms } from '@parley/engine/audio';
import { fliteSpeech8k, rtpPackets, writePcap } from './support/pcap.ts';
import { GatewayRig } from './support/rig.ts';
import { header, RawCall, RawSip } from './support/raw-sip.ts';
import { runSipp } from './support/sipp.ts';

const SENTENCE = 'I would like to book an appointment for tomorrow morning.';

describe('inbound SIP call through SIPp', () => {
  let rig: GatewayRig;
  let pcap: string;

  beforeAll(async () => {
    rig = await GatewayRig.start();
    pcap = join(rig.dir, 'caller.pcap');
    const speech = await fliteSpeech8k(rig.dir, SENTENCE);
    await writePcap(pcap, rtpPackets(speech, { leadMs: 200, tailMs: 1_500, digits: '42' }));
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('bridges the caller to the agent: transcript, DTMF, greeting as RTP, BYE', async () => {
    rig.llm.chat.enqueue({ tokens: ['Sure, ', 'what ', 'time ', 'suits ', 'you?'] });
    const portsFree = rig.gateway.health.rtpPortsFree;
    // The caller's SDP names this socket as where it receives RTP; SIPp's pcap player sends from port 0, which
    // the gateway never latches onto, so the agent's audio comes here.
    const capture: Socket = createSocket('udp4');
    await new Promise<void>((resolve) => capture.bind(0, '127.0.0.1', resolve));
    const received: { at: number; payloadType: number; payload: Buffer }[] = [];
    capture.on('message', (data) =>
      received.push({ at: performance.now(), payloadType: data[1]! & 0x7f, payload: data.subarray(12) }),
    );
    const sipp = runSipp({
      scenario: 'uac-pcap.xml',
      target: rig.gateway.sipPort,
      dir: rig.dir,
      service: '+14155550123',
      values: { PCAP: pcap, HOLD_MS: 9_000, MEDIA_PORT: capture.address().port },
      timeoutMs: 40_000,
    });
    const started = await rig.waitFor((e) => e.type === 'state' && e.state === 'greeting');
    const callId = started.callId;
    const call = rig.gateway.calls.get(callId);
    expect(call).toBeDefined();
    expect(rig.offers[0]).toMatchObject({
      to: '+14155550123',
      from: '+15550100',
      fromName: 'Ravi Kumar',
      transport: 'udp',
    });

    // The caller's words reach the engine (pocketsphinx may cut them into more than one utterance).
    await rig.waitFor(
      (e) =>
        e.callId === callId &&
        e.type === 'transcript' &&
        e.speaker === 'user' &&
        /appointment|book|tomorrow|morning/.test(e.text.toLowerCase()),
      30_000,
    );
    const digits = await rig.waitFor((e) => e.callId === callId && e.type === 'dtmf' && e.digit === '2', 30_000);
    expect(digits).toBeDefined();
    expect(
      rig
        .eventsOf(callId)
        .filter((e) => e.type === 'dtmf')
        .map((e) => (e as { digit: string }).digit),
    ).toEqual(['4', '2']);

    const result = await sipp;
    expect(result.errors, result.stdout).toBe('');
    expect(result.code, result.stdout).toBe(0);
    const ended = await rig.waitFor((e) => e.callId === callId && e.type === 'ended');
    expect(ended).toMatchObject({ reason: 'caller_hangup', outcome: 'completed' });
    expect(call!.endReason).toBe('remote_bye');
    // The greeting went out as RTP: agent audio (not the idle silence) filled packets, and the bridge carried it.
    expect(call!.rtp.stats.received).toBeGreaterThan(100);
    // At least half a second of the greeting (the caller barges in on it, sooner or later as the machine allows).
    expect(call!.bridge.stats.framesOut).toBeGreaterThan(25);
    expect(call!.rtp.stats.audioSent).toBeGreaterThanOrEqual(call!.bridge.stats.framesOut - 5);
    // On the wire: PCMU packets every 20 ms, and the greeting in them (seconds of voiced audio).
    capture.close();
    expect(received.length).toBeGreaterThan(300);
    expect(received.every((p) => p.payloadType === 0 && p.payload.length === 160)).toBe(true);
    const voiced = received.filter((p) => rms(decodeMulaw(p.payload)) > 300).length;
    expect(voiced).toBeGreaterThan(25);
    const gaps = received
      .slice(1)
      .map((p, i) => p.at - received[i]!.at)
      .sort((a, b) => a - b);
    expect(gaps[Math.floor(gaps.length / 2)]).toBeGreaterThan(15);
    expect(gaps[Math.floor(gaps.length / 2)]).toBeLessThan(25);
    expect(call!.ended).toBe(true);
    await rig.until(() => rig.gateway.health.rtpPortsFree === portsFree, 5_000, 'every RTP port free');
    expect(rig.gateway.health.activeCalls).toBe(0);
  }, 90_000);

  it('hangs up when the engine refuses the bridge: a forged stream token gets `rejected`, then BYE', async () => {
    // The last character of the MAC changed: the engine's HMAC check fails.
    rig.tokenFor = (real) => `${real.slice(0, -1)}${real.endsWith('A') ? 'B' : 'A'}`;
    const sip = await RawSip.open(rig.gateway.sipPort);
    try {
      const call = new RawCall(sip);
      sip.send(call.request('INVITE', { body: call.sdp(4_000) }));
      const ok = await sip.waitFor((m) => m.status === 200, 15_000);
      call.toTag = /;tag=([^;\s]+)/.exec(header(ok.text, 'To')!)![1];
      sip.send(call.request('ACK'));
      const bye = await sip.waitFor((m) => m.method === 'BYE', 5_000);
      expect(bye.text).toMatch(/stream token refused: forged/);
      expect(rig.logs.some((l) => l.event === 'media bridge refused' && l.detail?.reason === 'forged')).toBe(true);
      await rig.until(() => rig.gateway.health.activeCalls === 0, 2_000, 'the call gone');
    } finally {
      rig.tokenFor = (real) => real;
      sip.close();
    }
  }, 30_000);
});
