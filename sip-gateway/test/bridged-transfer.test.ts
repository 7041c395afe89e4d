/**
 * Transfer by a bridged new leg (REFER not allowed): SIPp calls the gateway (the caller), the test stands in for
 * the engine and asks for a transfer on the media bridge; the gateway INVITEs a second SIPp (the target, behind a
 * trunk demanding digest auth) and, once it answers, tells the engine `transfer_result` ok and `stop`s the bridge,
 * then relays audio and keys between the two SIPp instances. Each side's capture socket receives the other side's
 * speech (not the idle silence) and the caller's key; the caller's BYE ends both legs, and so does the target's;
 * every RTP port is freed.
 * A busy target, or one no trunk can dial, leaves the caller with the agent and says why.
 */
import { createSocket, type Socket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMulaw, rms } from '@parley/engine/audio';
import {
  callCodecs,
  isAudioFrame,
  sipCodecs,
  subjects,
  type MediaBridgeInbound,
  type SipDialRequest,
} from '@parley/engine/protocol';
import { startBareGateway, type BareGateway } from './support/bare-gateway.ts';
import { fliteSpeech8k, rtpPackets, TELEPHONE_EVENT_PT, writePcap } from './support/pcap.ts';
import { freePort, runSipp } from './support/sipp.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';

interface Captured {
  payloadType: number;
  payload: Buffer;
}

async function captureSocket(): Promise<{ socket: Socket; packets: Captured[] }> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const packets: Captured[] = [];
  socket.on('message', (data) => packets.push({ payloadType: data[1]! & 0x7f, payload: data.subarray(12) }));
  return { socket, packets };
}

const voiced = (packets: Captured[]) =>
  packets.filter((p) => p.payloadType === 0 && rms(decodeMulaw(p.payload)) > 300).length;

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('transfer by a bridged new leg when REFER is not allowed', () => {
  let bare: BareGateway;
  let dir: string;
  let callerPcap: string;
  let targetPcap: string;

  beforeAll(async () => {
    bare = await startBareGateway();
    dir = await mkdtemp(join(tmpdir(), 'parley-transfer-'));
    callerPcap = join(dir, 'caller.pcap');
    targetPcap = join(dir, 'target.pcap');
    // The caller speaks after 2 s (the bridge is up by then) and presses 7; the target speaks as it answers.
    await writePcap(
      callerPcap,
      rtpPackets(await fliteSpeech8k(dir, 'Hello, I was told you can help me with my order.'), {
        leadMs: 2_000,
        tailMs: 400,
        digits: '7',
      }),
    );
    await writePcap(
      targetPcap,
      rtpPackets(await fliteSpeech8k(dir, 'Sales desk, how can I help you today?'), { leadMs: 600, tailMs: 200 }),
    );
  }, 60_000);

  afterAll(async () => {
    await bare?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The next INVITE is answered as call `callId` with REFER off and the target's trunk for transfers. */
  function answerAs(callId: string, trunkPort: number): void {
    bare.answer = () => ({
      ok: true,
      callId,
      organisationId: 'org',
      streamToken: 'token-no-engine-holds',
      sipConfigurationId: 'cfg',
      referEnabled: false,
      trunk: {
        host: '127.0.0.1',
        port: trunkPort,
        transport: 'udp',
        fromUser: '+14155550123',
        username: 'parley',
        password: 's3cret',
      },
    });
  }

  /** What the gateway says on the media bridge (the test is the engine). */
  function bridgeMessages(callId: string): MediaBridgeInbound[] {
    const messages: MediaBridgeInbound[] = [];
    const subscription = bare.bus.subscribe(subjects.mediaIn(callId));
    void (async () => {
      for await (const message of subscription)
        if (!isAudioFrame(message.data)) messages.push(sipCodecs.bridgeIn.decode(message.data));
    })();
    return messages;
  }

  it('bridges the target once it answers, relays RTP and keys both ways, and ends both legs at one BYE', async () => {
    const free = bare.gateway.health.rtpPortsFree;
    const callId = `call${randomBytes(6).toString('hex')}`;
    const trunkPort = await freePort();
    answerAs(callId, trunkPort);
    const messages = bridgeMessages(callId);
    const callerSide = await captureSocket();
    const targetSide = await captureSocket();
    const target = runSipp({
      scenario: 'uas-transfer-target.xml',
      target: 0,
      uas: { port: trunkPort },
      dir,
      values: { PCAP: targetPcap, MEDIA_PORT: targetSide.socket.address().port, USER: 'parley', PASSWORD: 's3cret' },
      timeoutMs: 40_000,
    });
    const caller = runSipp({
      scenario: 'uac-pcap.xml',
      target: bare.gateway.sipPort,
      dir,
      service: '+14155550123',
      values: { PCAP: callerPcap, HOLD_MS: 9_000, MEDIA_PORT: callerSide.socket.address().port },
      timeoutMs: 40_000,
    });
    await until(() => messages.some((m) => m.type === 'start'), 10_000, 'the bridge to open');
    bare.bus.publish(subjects.mediaOut(callId), sipCodecs.bridgeOut.encode({ type: 'transfer', to: '+14155550777' }));
    await until(() => messages.some((m) => m.type === 'stop'), 15_000, 'the bridge to stop');
    const result = messages.find((m) => m.type === 'transfer_result');
    expect(result).toMatchObject({ type: 'transfer_result', ok: true, sipStatus: 200 });
    expect(messages.findIndex((m) => m.type === 'transfer_result')).toBeLessThan(
      messages.findIndex((m) => m.type === 'stop'),
    );
    expect(messages.find((m) => m.type === 'stop')).toEqual({ type: 'stop', reason: 'transferred' });
    // Both legs live while bridged: the call and its new leg, and the port of each.
    expect(bare.gateway.health.activeCalls).toBe(2);
    expect(bare.gateway.health.rtpPortsFree).toBe(free - 2);
    // The engine hanging up the AI call it left changes nothing now.
    bare.bus.publish(subjects.mediaOut(callId), sipCodecs.bridgeOut.encode({ type: 'hangup', reason: 'transferred' }));
    bare.bus.publish(
      subjects.sipCallControl(callId),
      sipCodecs.control.encode({ type: 'hangup', reason: 'call ended' }),
    );

    const [callerResult, targetResult] = await Promise.all([caller, target]);
    expect(callerResult.errors, callerResult.stdout).toBe('');
    expect(callerResult.code, callerResult.stdout).toBe(0);
    expect(targetResult.errors, targetResult.stdout).toBe('');
    expect(targetResult.code, targetResult.stdout).toBe(0);
    await until(() => bare.gateway.health.activeCalls === 0, 5_000, 'both legs to end');
    await until(() => bare.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
    callerSide.socket.close();
    targetSide.socket.close();
    // The target heard the caller's sentence and key; the caller heard the target's sentence.
    expect(voiced(targetSide.packets)).toBeGreaterThan(25);
    expect(targetSide.packets.some((p) => p.payloadType === TELEPHONE_EVENT_PT && p.payload[0] === 7)).toBe(true);
    expect(voiced(callerSide.packets)).toBeGreaterThan(25);
  }, 60_000);

  it('ends the caller leg when the transfer target hangs up first', async () => {
    const free = bare.gateway.health.rtpPortsFree;
    const callId = `call${randomBytes(6).toString('hex')}`;
    const trunkPort = await freePort();
    answerAs(callId, trunkPort);
    const messages = bridgeMessages(callId);
    const callerSide = await captureSocket();
    const targetSide = await captureSocket();
    // uas-answer.xml: challenged, answered, then its own BYE after HOLD_MS.
    const target = runSipp({
      scenario: 'uas-answer.xml',
      target: 0,
      uas: { port: trunkPort },
      dir,
      values: {
        PCAP: targetPcap,
        HOLD_MS: 3_000,
        MEDIA_PORT: targetSide.socket.address().port,
        USER: 'parley',
        PASSWORD: 's3cret',
      },
      timeoutMs: 30_000,
    });
    const caller = runSipp({
      scenario: 'uac-await-bye.xml',
      target: bare.gateway.sipPort,
      dir,
      service: '+14155550123',
      values: { PCAP: callerPcap, MEDIA_PORT: callerSide.socket.address().port },
      timeoutMs: 30_000,
    });
    await until(() => messages.some((m) => m.type === 'start'), 10_000, 'the bridge to open');
    bare.bus.publish(subjects.mediaOut(callId), sipCodecs.bridgeOut.encode({ type: 'transfer', to: '+14155550777' }));
    await until(() => messages.some((m) => m.type === 'stop'), 15_000, 'the bridge to stop');
    const [callerResult, targetResult] = await Promise.all([caller, target]);
    expect(targetResult.errors, targetResult.stdout).toBe('');
    expect(targetResult.code, targetResult.stdout).toBe(0);
    // The caller got the gateway's BYE (its scenario ends only by answering one).
    expect(callerResult.errors, callerResult.stdout).toBe('');
    expect(callerResult.code, callerResult.stdout).toBe(0);
    await until(() => bare.gateway.health.activeCalls === 0, 5_000, 'both legs to end');
    await until(() => bare.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
    callerSide.socket.close();
    targetSide.socket.close();
    expect(voiced(callerSide.packets)).toBeGreaterThan(25);
  }, 45_000);

  it('keeps the caller with the agent when the target is busy, and says so', async () => {
    const free = bare.gateway.health.rtpPortsFree;
    const callId = `call${randomBytes(6).toString('hex')}`;
    const trunkPort = await freePort();
    answerAs(callId, trunkPort);
    const messages = bridgeMessages(callId);
    const callerSide = await captureSocket();
    const target = runSipp({ scenario: 'uas-busy.xml', target: 0, uas: { port: trunkPort }, dir, timeoutMs: 20_000 });
    const caller = runSipp({
      scenario: 'uac-pcap.xml',
      target: bare.gateway.sipPort,
      dir,
      service: '+14155550123',
      values: { PCAP: callerPcap, HOLD_MS: 4_000, MEDIA_PORT: callerSide.socket.address().port },
      timeoutMs: 20_000,
    });
    await until(() => messages.some((m) => m.type === 'start'), 10_000, 'the bridge to open');
    bare.bus.publish(subjects.mediaOut(callId), sipCodecs.bridgeOut.encode({ type: 'transfer', to: '+14155550777' }));
    await until(() => messages.some((m) => m.type === 'transfer_result'), 10_000, 'the transfer result');
    expect(messages.find((m) => m.type === 'transfer_result')).toMatchObject({ ok: false, sipStatus: 486 });
    expect(messages.some((m) => m.type === 'stop')).toBe(false);
    expect(bare.gateway.calls.get(callId)?.ended).toBe(false);
    // A target no trunk can dial is refused before any SIP is sent (484), and the call goes on too.
    bare.bus.publish(subjects.mediaOut(callId), sipCodecs.bridgeOut.encode({ type: 'transfer', to: 'not a number!' }));
    await until(() => messages.filter((m) => m.type === 'transfer_result').length === 2, 5_000, 'the second result');
    expect(messages.filter((m) => m.type === 'transfer_result')[1]).toMatchObject({ ok: false, sipStatus: 484 });
    expect(bare.gateway.calls.get(callId)?.ended).toBe(false);
    expect((await target).code).toBe(0);
    const callerResult = await caller;
    expect(callerResult.code, callerResult.stdout + callerResult.errors).toBe(0);
    await until(() => messages.some((m) => m.type === 'stop'), 5_000, 'the caller BYE to stop the bridge');
    await until(() => bare.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
    callerSide.socket.close();
  }, 40_000);

  it('bridges an outbound leg by the dial trunk on the control plane order, reports transferred, and ends both at RTP silence', async () => {
    // Its own gateway: RTP silent 2.5 s ends a leg, so the bridged pair ends once both SIPp have played their pcap.
    const own = await startBareGateway({ rtpTimeoutMs: 2_500 });
    try {
      const free = own.gateway.health.rtpPortsFree;
      const callId = `call${randomBytes(6).toString('hex')}`;
      const telephony: string[] = [];
      const events = own.bus.subscribe(subjects.callEvents(callId));
      void (async () => {
        for await (const message of events) {
          const event = callCodecs.event.decode(message.data);
          if (event.type === 'telephony') telephony.push(event.status);
        }
      })();
      // One SIPp is the trunk: the callee's call and then the transfer target's, both challenged, answered, and
      // waiting for the gateway's BYE.
      const trunkPort = await freePort();
      const calleeSide = await captureSocket();
      const trunk = runSipp({
        scenario: 'uas-transfer-target.xml',
        target: 0,
        uas: { port: trunkPort },
        calls: 2,
        dir,
        values: { PCAP: targetPcap, MEDIA_PORT: calleeSide.socket.address().port, USER: 'parley', PASSWORD: 's3cret' },
        timeoutMs: 40_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const request: SipDialRequest = {
        callId,
        organisationId: 'org',
        to: '+14155550199',
        trunk: {
          host: '127.0.0.1',
          port: trunkPort,
          transport: 'udp',
          fromUser: '+14155550100',
          username: 'parley',
          password: 's3cret',
        },
        streamToken: 'token-no-engine-holds',
        ringTimeoutMs: 10_000,
        sipConfigurationId: 'cfg-out',
        referEnabled: false,
      };
      const reply = sipCodecs.dialReply.decode(
        (await own.bus.request(subjects.sipDial(), sipCodecs.dialRequest.encode(request), { timeoutMs: 5_000 })).data,
      );
      expect(reply.ok).toBe(true);
      await until(() => telephony.includes('answered'), 10_000, 'the callee to answer');
      own.bus.publish(
        subjects.sipCallControl(callId),
        sipCodecs.control.encode({ type: 'transfer', to: '+14155550777' }),
      );
      await until(() => telephony.includes('transferred'), 10_000, 'the transfer');
      expect(own.gateway.health.activeCalls).toBe(2);
      const result = await trunk;
      expect(result.errors, result.stdout).toBe('');
      expect(result.code, result.stdout).toBe(0);
      await until(() => own.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
      // The call record ends at the transfer: the bridged legs' end reports nothing more.
      expect(telephony).toEqual(['ringing', 'answered', 'transferred']);
      events.unsubscribe();
      calleeSide.socket.close();
    } finally {
      await own.close();
    }
  }, 60_000);
});
