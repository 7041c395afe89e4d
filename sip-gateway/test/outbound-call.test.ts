/**
 * Outbound SIP legs against SIPp as the trunk and callee: the gateway takes `v1.sip.dial` (queue sip-gateway),
 * INVITEs, answers the trunk's digest challenge, and reports the leg as `telephony` call events; an answered leg
 * opens the media bridge to the real engine the call was dispatched to (the callee hears the greeting; what it
 * says is transcribed), and the callee's BYE completes it. Busy (486), a CANCEL ordered while ringing, and the
 * ring timeout (CANCEL, no_answer) end without a session. Every RTP port is free after each.
 */
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sipCodecs, subjects, type SipDialRequest } from '@parley/engine/protocol';
import { fliteSpeech8k, rtpPackets, writePcap } from './support/pcap.ts';
import { GatewayRig } from './support/rig.ts';
import { freeMediaPort, freePort, runSipp, type SippResult } from './support/sipp.ts';

describe('outbound SIP legs against a SIPp trunk', () => {
  let rig: GatewayRig;
  let pcap: string;

  beforeAll(async () => {
    rig = await GatewayRig.start();
    pcap = join(rig.dir, 'callee.pcap');
    await writePcap(
      pcap,
      rtpPackets(await fliteSpeech8k(rig.dir, 'I would like to book an appointment for tomorrow morning.'), {
        leadMs: 200,
        tailMs: 1_000,
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  /** Starts SIPp as the trunk with `scenario`, dispatches a call to the engine, and asks the gateway to dial it. */
  async function dial(
    scenario: string,
    options: {
      ringTimeoutMs?: number;
      credentials?: boolean;
      referEnabled?: boolean;
      values?: Record<string, string | number>;
    } = {},
  ): Promise<{ callId: string; sipp: Promise<SippResult> }> {
    const port = await freePort();
    const sipp = runSipp({
      scenario,
      target: 0,
      uas: { port },
      dir: rig.dir,
      values: {
        PCAP: pcap,
        HOLD_MS: 8_000,
        MEDIA_PORT: await freeMediaPort(),
        USER: 'parley',
        PASSWORD: 's3cret',
        ...options.values,
      },
      timeoutMs: 40_000,
    });
    // SIPp listens within a few ms; our Timer A would retransmit the INVITE anyway.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const callId = `call${randomBytes(8).toString('hex')}`;
    const streamToken = await rig.dispatch(rig.spec(callId, 'OUTBOUND', '+14155550199'));
    const request: SipDialRequest = {
      callId,
      organisationId: 'org-sip',
      to: '+14155550199',
      trunk: {
        host: '127.0.0.1',
        port,
        transport: 'udp',
        fromUser: '+14155550100',
        fromDisplayName: 'Maya',
        ...(options.credentials && { username: 'parley', password: 's3cret' }),
      },
      streamToken,
      ringTimeoutMs: options.ringTimeoutMs ?? 30_000,
      sipConfigurationId: 'sipcfg-out',
      referEnabled: options.referEnabled ?? false,
    };
    const reply = sipCodecs.dialReply.decode(
      (await rig.bus.request(subjects.sipDial(), sipCodecs.dialRequest.encode(request), { timeoutMs: 5_000 })).data,
    );
    expect(reply).toEqual({ ok: true, gatewayId: rig.gateway.id });
    return { callId, sipp };
  }

  const telephony = (callId: string) => rig.eventsOf(callId).flatMap((e) => (e.type === 'telephony' ? [e.status] : []));

  it('answers a digest challenge, bridges the answered callee to the agent, and completes at its BYE', async () => {
    rig.llm.chat.enqueue({ tokens: ['This ', 'is ', 'Maya ', 'from ', 'the ', 'clinic.'] });
    const free = rig.gateway.health.rtpPortsFree;
    const { callId, sipp } = await dial('uas-answer.xml', { credentials: true });
    await rig.waitFor((e) => e.callId === callId && e.type === 'telephony' && e.status === 'answered');
    await rig.waitFor((e) => e.callId === callId && e.type === 'state' && e.state === 'greeting');
    // The callee's words reach the engine (pocketsphinx may cut them into more than one utterance).
    await rig.waitFor(
      (e) =>
        e.callId === callId &&
        e.type === 'transcript' &&
        e.speaker === 'user' &&
        /appointment|book|tomorrow|morning/.test(e.text.toLowerCase()),
      30_000,
    );
    const result = await sipp;
    expect(result.errors, result.stdout).toBe('');
    expect(result.code, result.stdout).toBe(0);
    await rig.waitFor((e) => e.callId === callId && e.type === 'telephony' && e.status === 'completed');
    expect(telephony(callId)).toEqual(['ringing', 'answered', 'completed']);
    await rig.waitFor((e) => e.callId === callId && e.type === 'ended');
    await rig.until(() => rig.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
  }, 60_000);

  it('reports busy at a 486 and ACKs it', async () => {
    const free = rig.gateway.health.rtpPortsFree;
    const { callId, sipp } = await dial('uas-busy.xml');
    const busy = await rig.waitFor((e) => e.callId === callId && e.type === 'telephony' && e.status !== 'ringing');
    expect(busy).toMatchObject({ status: 'busy', sipStatus: 486 });
    const result = await sipp;
    expect(result.code, result.stdout + result.errors).toBe(0);
    await rig.until(() => rig.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
    expect(rig.gateway.health.pendingCalls).toBe(0);
  }, 30_000);

  it('CANCELs a ringing leg when the control plane hangs it up', async () => {
    const free = rig.gateway.health.rtpPortsFree;
    const { callId, sipp } = await dial('uas-ring.xml');
    await rig.waitFor((e) => e.callId === callId && e.type === 'telephony' && e.status === 'ringing');
    rig.bus.publish(
      subjects.sipCallControl(callId),
      sipCodecs.control.encode({ type: 'hangup', reason: 'caller gave up' }),
    );
    const ended = await rig.waitFor((e) => e.callId === callId && e.type === 'telephony' && e.status !== 'ringing');
    expect(ended).toMatchObject({ status: 'cancelled', sipStatus: 487 });
    const result = await sipp;
    expect(result.code, result.stdout + result.errors).toBe(0);
    await rig.until(() => rig.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
  }, 30_000);

  it('gives up ringing after ringTimeoutMs: CANCEL, then no_answer', async () => {
    const { callId, sipp } = await dial('uas-ring.xml', { ringTimeoutMs: 1_500 });
    const started = Date.now();
    const ended = await rig.waitFor((e) => e.callId === callId && e.type === 'telephony' && e.status !== 'ringing');
    expect(ended).toMatchObject({ status: 'no_answer', sipStatus: 487 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const result = await sipp;
    expect(result.code, result.stdout + result.errors).toBe(0);
    expect(rig.gateway.health.pendingCalls).toBe(0);
  }, 30_000);

  it('transfers an answered leg by REFER when its configuration allows it: 202, NOTIFY 200, then BYE', async () => {
    const free = rig.gateway.health.rtpPortsFree;
    const { callId, sipp } = await dial('uas-refer.xml', { referEnabled: true, values: { TARGET: '\\+14155550777' } });
    await rig.waitFor((e) => e.callId === callId && e.type === 'telephony' && e.status === 'answered');
    rig.bus.publish(
      subjects.sipCallControl(callId),
      sipCodecs.control.encode({ type: 'transfer', to: '+14155550777' }),
    );
    await rig.waitFor((e) => e.callId === callId && e.type === 'telephony' && e.status === 'transferred');
    const result = await sipp;
    expect(result.errors, result.stdout).toBe('');
    expect(result.code, result.stdout).toBe(0);
    expect(telephony(callId)).toEqual(['ringing', 'answered', 'transferred']);
    await rig.until(() => rig.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
  }, 30_000);
});
