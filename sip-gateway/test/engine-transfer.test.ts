/**
 * A transfer the agent asks for, through a real engine (a FLOW agent whose handover step transfers to its handover
 * number) when the configuration does not allow REFER: the gateway bridges a new leg to a SIPp target over the
 * trunk, the engine hears `transfer_result` and ends the call `transferred`, and the caller and the target are left
 * talking through the gateway until the target hangs up, which ends the caller's leg too. When the target is busy
 * the engine's transfer fails, the flow takes its failure path (an apology and the end), and the agent hangs up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { CallSpec } from '@parley/engine/protocol';
import { fliteSpeech8k, rtpPackets, writePcap } from './support/pcap.ts';
import { GatewayRig } from './support/rig.ts';
import { freeMediaPort, freePort, runSipp } from './support/sipp.ts';

const HANDOVER_FLOW = {
  version: 1,
  start: 'greet',
  steps: {
    greet: { kind: 'say', text: 'Hello, this is the clinic.', next: 'front_desk' },
    front_desk: { kind: 'handover', text: 'Let me connect you with our front desk.', onFailure: 'sorry' },
    sorry: {
      kind: 'end',
      outcome: { key: 'transfer_failed', label: 'Transfer failed' },
      text: 'Sorry, nobody at the front desk can take your call. Goodbye.',
    },
  },
};

describe('a transfer the agent asks for, bridged by the gateway', () => {
  let rig: GatewayRig;
  let pcap: string;
  let silence: string;

  beforeAll(async () => {
    rig = await GatewayRig.start();
    pcap = join(rig.dir, 'speech.pcap');
    await writePcap(pcap, rtpPackets(await fliteSpeech8k(rig.dir, 'Front desk, how can I help?'), { tailMs: 200 }));
    // The caller only listens: nothing it sends barges in on the agent's lines.
    silence = join(rig.dir, 'silence.pcap');
    await writePcap(silence, rtpPackets(new Int16Array(0), { tailMs: 3_000 }));
    rig.agent = {
      builderMode: 'FLOW',
      greetingMessage: null,
      agentTask: null,
      flowDefinition: HANDOVER_FLOW as unknown as CallSpec['agent']['flowDefinition'],
      handoverNumber: '+14155550777',
    };
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  async function trunk(): Promise<number> {
    const port = await freePort();
    rig.transfer = {
      referEnabled: false,
      trunk: {
        host: '127.0.0.1',
        port,
        transport: 'udp',
        fromUser: '+14155550123',
        username: 'parley',
        password: 's3cret',
      },
    };
    return port;
  }

  it('ends the engine call transferred once the target answers, and the target hanging up ends the caller', async () => {
    const free = rig.gateway.health.rtpPortsFree;
    const trunkPort = await trunk();
    const target = runSipp({
      scenario: 'uas-answer.xml',
      target: 0,
      uas: { port: trunkPort },
      dir: rig.dir,
      values: { PCAP: pcap, HOLD_MS: 2_000, MEDIA_PORT: await freeMediaPort(), USER: 'parley', PASSWORD: 's3cret' },
      timeoutMs: 40_000,
    });
    const caller = runSipp({
      scenario: 'uac-await-bye.xml',
      target: rig.gateway.sipPort,
      dir: rig.dir,
      service: '+14155550123',
      values: { PCAP: silence, MEDIA_PORT: await freeMediaPort() },
      timeoutMs: 40_000,
    });
    const ended = await rig.waitFor((e) => e.type === 'ended', 30_000);
    expect(ended).toMatchObject({ reason: 'transferred' });
    const [callerResult, targetResult] = await Promise.all([caller, target]);
    expect(targetResult.errors, targetResult.stdout).toBe('');
    expect(targetResult.code, targetResult.stdout).toBe(0);
    expect(callerResult.errors, callerResult.stdout).toBe('');
    expect(callerResult.code, callerResult.stdout).toBe(0);
    await rig.until(() => rig.gateway.health.activeCalls === 0, 5_000, 'both legs to end');
    await rig.until(() => rig.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
  }, 60_000);

  it('keeps the agent on the line when the target is busy: the flow apologises and hangs up', async () => {
    const free = rig.gateway.health.rtpPortsFree;
    const trunkPort = await trunk();
    const target = runSipp({ scenario: 'uas-busy.xml', target: 0, uas: { port: trunkPort }, dir: rig.dir });
    const caller = runSipp({
      scenario: 'uac-await-bye.xml',
      target: rig.gateway.sipPort,
      dir: rig.dir,
      service: '+14155550123',
      values: { PCAP: silence, MEDIA_PORT: await freeMediaPort() },
      timeoutMs: 40_000,
    });
    const apology = await rig.waitFor(
      (e) => e.type === 'transcript' && e.text.startsWith('Sorry, nobody at the front desk'),
      30_000,
    );
    const ended = await rig.waitFor((e) => e.callId === apology.callId && e.type === 'ended', 30_000);
    expect(ended).toMatchObject({ reason: 'flow_ended' });
    expect((await target).code).toBe(0);
    const callerResult = await caller;
    expect(callerResult.errors, callerResult.stdout).toBe('');
    expect(callerResult.code, callerResult.stdout).toBe(0);
    await rig.until(() => rig.gateway.health.rtpPortsFree === free, 5_000, 'every RTP port free');
  }, 60_000);
});
