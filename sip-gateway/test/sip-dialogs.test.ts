/**
 * The gateway's SIP behaviour, driven by hand-written messages over UDP (and sipsak for OPTIONS): RFC 3261's
 * retransmissions (the 200 until its ACK, a final error until its ACK, BYE when no ACK ever comes), CANCEL of an
 * INVITE the control plane is still deciding on, the control plane's refusals and silence, and hold by
 * re-INVITE (sendonly/inactive answered recvonly/inactive, and no RTP sent while held; a codec change moves the
 * idle silence to the new codec). T1 is 100 ms here.
 */
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer, connect, type Socket as TcpSocket } from 'node:net';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sineWave } from '@parley/engine/audio';
import { sipCodecs, subjects } from '@parley/engine/protocol';
import { startBareGateway, type BareGateway } from './support/bare-gateway.ts';
import { rtpPackets, writePcap } from './support/pcap.ts';
import { header, RawCall, RawSip } from './support/raw-sip.ts';
import { freeMediaPort, runSipp } from './support/sipp.ts';

const run = promisify(execFile);
const TIMERS = { t1: 100, t2: 400, t4: 500 };

let bare: BareGateway | undefined;
let sip: RawSip | undefined;

afterEach(async () => {
  sip?.close();
  sip = undefined;
  await bare?.close();
  bare = undefined;
});

async function setUp(options: Parameters<typeof startBareGateway>[0] = {}) {
  bare = await startBareGateway({ timers: TIMERS, ...options });
  sip = await RawSip.open(bare.gateway.sipPort);
  return { bare, sip };
}

function toTagOf(text: string): string {
  return /;tag=([^;\s]+)/.exec(header(text, 'To') ?? '')?.[1] ?? '';
}

describe('SIP dialogs and transactions', () => {
  it('answers OPTIONS 200 with Allow to sipsak', async () => {
    const { bare } = await setUp();
    const { stdout } = await run('sipsak', ['-vv', '-s', `sip:ping@127.0.0.1:${bare.gateway.sipPort}`]);
    expect(stdout).toMatch(/SIP\/2\.0 200 OK/);
    expect(stdout).toMatch(/Allow: INVITE, ACK, BYE, CANCEL, OPTIONS/);
  });

  it('retransmits its 200 until the ACK, then stops; the BYE frees the RTP port', async () => {
    const { bare, sip } = await setUp();
    const call = new RawCall(sip);
    const free = bare.gateway.health.rtpPortsFree;
    sip.send(call.request('INVITE', { body: call.sdp(49_170) }));
    await sip.waitFor((m) => m.status === 100);
    const ok = await sip.waitFor((m) => m.status === 200);
    expect(header(ok.text, 'Content-Type')).toBe('application/sdp');
    expect(ok.text).toMatch(/m=audio \d+ RTP\/AVP 8 101/); // PCMA first in our offer, so chosen
    expect(ok.text).toMatch(/a=sendrecv/);
    expect(bare.gateway.health.rtpPortsFree).toBe(free - 1);
    // No ACK yet: the 200 comes again, T1 then 2·T1 later.
    const second = await sip.waitFor((m) => m.status === 200 && m !== ok, 1_000);
    const third = await sip.waitFor((m) => m.status === 200 && m !== ok && m !== second, 1_000);
    expect(second.at - ok.at).toBeGreaterThanOrEqual(80);
    expect(third.at - second.at).toBeGreaterThanOrEqual(160);
    call.toTag = toTagOf(ok.text);
    sip.send(call.request('ACK'));
    await new Promise((r) => setTimeout(r, 600));
    const okCount = sip.received.filter((m) => m.status === 200).length;
    await new Promise((r) => setTimeout(r, 600));
    expect(sip.received.filter((m) => m.status === 200).length).toBe(okCount);
    expect(bare.gateway.health.activeCalls).toBe(1);

    call.cseq = 2;
    const before = sip.received.length;
    sip.send(call.request('BYE'));
    await sip.waitFor((m) => m.status === 200 && /CSeq: 2 BYE/.test(m.text), 2_000, before);
    expect(bare.gateway.health).toMatchObject({ activeCalls: 0, rtpPortsFree: free });
  });

  it('hangs up with BYE when the ACK of its 200 never comes (64·T1)', async () => {
    const { bare, sip } = await setUp();
    const call = new RawCall(sip);
    const free = bare.gateway.health.rtpPortsFree;
    sip.send(call.request('INVITE', { body: call.sdp(49_172) }));
    const ok = await sip.waitFor((m) => m.status === 200);
    const bye = await sip.waitFor((m) => m.method === 'BYE', 10_000);
    expect(bye.at - ok.at).toBeGreaterThanOrEqual(6_000);
    expect(bare.gateway.health).toMatchObject({ activeCalls: 0, rtpPortsFree: free });
  }, 15_000);

  it('hangs up a call whose RTP stops (RTP timeout) and frees its port', async () => {
    const { bare, sip } = await setUp({ rtpTimeoutMs: 600 });
    const call = new RawCall(sip);
    sip.send(call.request('INVITE', { body: call.sdp(49_180) }));
    const ok = await sip.waitFor((m) => m.status === 200);
    call.toTag = toTagOf(ok.text);
    sip.send(call.request('ACK'));
    const bye = await sip.waitFor((m) => m.method === 'BYE', 5_000);
    expect(bye.text).toMatch(/text="rtp_timeout"/);
    expect(bare.gateway.health).toMatchObject({ activeCalls: 0, rtpPortsFree: bare.gateway.health.rtpPortsTotal });
  });

  it('takes a late offer: an INVITE without SDP gets our offer in the 200, and the ACK’s answer starts RTP', async () => {
    const { bare, sip } = await setUp();
    const rtp = createSocket('udp4');
    await new Promise<void>((resolve) => rtp.bind(0, '127.0.0.1', resolve));
    const payloadTypes: number[] = [];
    rtp.on('message', (data) => payloadTypes.push(data[1]! & 0x7f));
    const media = bare.bus.subscribe('v1.media.*.in');
    const fromGateway: string[] = [];
    void (async () => {
      for await (const message of media) if (message.data[0] === 0x7b) fromGateway.push(message.string());
    })();
    const call = new RawCall(sip);
    sip.send(call.request('INVITE'));
    const ok = await sip.waitFor((m) => m.status === 200);
    expect(ok.text).toMatch(/m=audio \d+ RTP\/AVP 0 8 101/);
    await new Promise((r) => setTimeout(r, 200));
    expect(payloadTypes).toEqual([]); // no answer yet: nowhere to send
    call.toTag = toTagOf(ok.text);
    // The answer takes PCMA.
    const answer = call.sdp(rtp.address().port).replace('RTP/AVP 8 0 101', 'RTP/AVP 8 101');
    sip.send(call.request('ACK', { body: answer }));
    await expect.poll(() => payloadTypes.length, { timeout: 2_000 }).toBeGreaterThan(5);
    expect(new Set(payloadTypes)).toEqual(new Set([8]));

    // A key pressed as SIP INFO (application/dtmf-relay) reaches the bridge like an RFC 4733 one.
    call.cseq = 2;
    sip.send(call.request('INFO', { contentType: 'application/dtmf-relay', body: 'Signal=9\r\nDuration=160\r\n' }));
    await sip.waitFor((m) => m.status === 200 && /CSeq: 2 INFO/.test(m.text));
    await expect
      .poll(() => fromGateway.some((m) => m === '{"type":"dtmf","digit":"9"}'), { timeout: 2_000 })
      .toBe(true);
    call.cseq = 3;
    sip.send(call.request('BYE'));
    await sip.waitFor((m) => m.status === 200 && /CSeq: 3 BYE/.test(m.text));
    media.unsubscribe();
    rtp.close();
  });

  it('over TCP, reaches the caller at its Contact once the connection the call came on has closed', async () => {
    const { bare } = await setUp();
    const inbox: string[] = [];
    const accepted: TcpSocket[] = [];
    const listener = createServer((socket) => {
      accepted.push(socket);
      socket.on('data', (data) => inbox.push(data.toString('latin1')));
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const contactPort = (listener.address() as { port: number }).port;
    const client: TcpSocket = connect(bare.gateway.sipPort, '127.0.0.1');
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    let received = '';
    client.on('data', (data) => (received += data.toString('latin1')));
    const call = new RawCall({ port: client.localPort! } as RawSip);
    const tcp = (text: string) =>
      text
        .replace('SIP/2.0/UDP', 'SIP/2.0/TCP')
        .replace(/Contact: <[^>]+>/, `Contact: <sip:raw@127.0.0.1:${contactPort};transport=tcp>`);
    client.write(tcp(call.request('INVITE', { body: call.sdp(4_000) })));
    await expect.poll(() => received, { timeout: 3_000 }).toMatch(/SIP\/2\.0 200 OK/);
    call.toTag = toTagOf(received.slice(received.indexOf('SIP/2.0 200')));
    client.write(tcp(call.request('ACK')));
    await new Promise((r) => setTimeout(r, 100));
    client.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const callId = [...bare.gateway.calls.keys()][0]!;
    bare.bus.publish(subjects.mediaOut(callId), sipCodecs.bridgeOut.encode({ type: 'hangup', reason: 'done' }));
    await expect
      .poll(() => inbox.join(''), { timeout: 3_000 })
      .toMatch(/^BYE sip:raw@127\.0\.0\.1:\d+;transport=tcp SIP\/2\.0/);
    expect(bare.gateway.health.activeCalls).toBe(0);
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  it("retransmits a refusal until its ACK (Timer G) and sends the control plane's status", async () => {
    const { bare, sip } = await setUp();
    bare.answer = () => ({
      ok: false,
      sipStatus: 404,
      reason: 'No SIP configuration for this number',
      code: 'not_found',
    });
    const call = new RawCall(sip);
    sip.send(call.request('INVITE', { body: call.sdp(49_174) }));
    const first = await sip.waitFor((m) => m.status === 404);
    expect(first.text).toMatch(/^SIP\/2\.0 404 No SIP configuration for this number/);
    const again = await sip.waitFor((m) => m.status === 404 && m !== first, 1_000);
    expect(again.at - first.at).toBeGreaterThanOrEqual(80);
    call.toTag = toTagOf(first.text);
    sip.send(call.request('ACK', { branch: /branch=([^;\s]+)/.exec(header(first.text, 'Via')!)![1] }));
    await new Promise((r) => setTimeout(r, 500));
    const count = sip.received.filter((m) => m.status === 404).length;
    await new Promise((r) => setTimeout(r, 800));
    expect(sip.received.filter((m) => m.status === 404).length).toBe(count);
    expect(bare.gateway.health.rtpPortsFree).toBe(bare.gateway.health.rtpPortsTotal);
  });

  it('ends an INVITE 487 when CANCELled while the control plane decides, and answers the CANCEL 200', async () => {
    const { bare, sip } = await setUp();
    let release!: () => void;
    bare.answer = () => new Promise<'accept'>((resolve) => (release = () => resolve('accept')));
    const call = new RawCall(sip);
    const branch = call.branch();
    sip.send(call.request('INVITE', { branch, body: call.sdp(49_176) }));
    await sip.waitFor((m) => m.status === 180);
    sip.send(call.request('CANCEL', { branch }));
    await sip.waitFor((m) => m.status === 200 && /CSeq: 1 CANCEL/.test(m.text));
    const terminated = await sip.waitFor((m) => m.status === 487);
    release();
    call.toTag = toTagOf(terminated.text);
    sip.send(call.request('ACK', { branch }));
    await new Promise((r) => setTimeout(r, 300));
    expect(sip.received.some((m) => m.status === 200 && /INVITE/.test(header(m.text, 'CSeq') ?? ''))).toBe(false);
    expect(bare.gateway.health).toMatchObject({ activeCalls: 0, pendingCalls: 0 });
    expect(bare.gateway.health.rtpPortsFree).toBe(bare.gateway.health.rtpPortsTotal);
  });

  it('answers 503 when no control plane answers, and 488 to an offer without G.711', async () => {
    const { bare, sip } = await setUp({ inboundTimeoutMs: 500 });
    bare.answer = () => new Promise(() => {}); // never answers
    const call = new RawCall(sip);
    sip.send(call.request('INVITE', { body: call.sdp(49_178) }));
    const unavailable = await sip.waitFor((m) => m.status === 503, 3_000);
    expect(unavailable.text).toMatch(/no answer from the control plane/);

    const opus = new RawCall(sip);
    sip.send(
      opus.request('INVITE', {
        body: 'v=0\r\no=x 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n',
      }),
    );
    const refused = await sip.waitFor((m) => m.status === 488 && m.text.includes(opus.callId));
    expect(refused.text).toMatch(/no PCMU or PCMA/);
    expect(bare.offers).toBe(1); // the 488 was decided without asking the control plane
  });

  it('holds and resumes by re-INVITE: sendonly → recvonly, inactive → inactive, and no RTP while held', async () => {
    const { bare, sip } = await setUp();
    const rtp = createSocket('udp4');
    await new Promise<void>((resolve) => rtp.bind(0, '127.0.0.1', resolve));
    let packets = 0;
    rtp.on('message', () => (packets += 1));
    const call = new RawCall(sip);
    const port = rtp.address().port;
    sip.send(call.request('INVITE', { body: call.sdp(port) }));
    const ok = await sip.waitFor((m) => m.status === 200);
    call.toTag = toTagOf(ok.text);
    sip.send(call.request('ACK'));
    await new Promise((r) => setTimeout(r, 300));
    expect(packets).toBeGreaterThan(5); // idle silence flows while not held

    const reinvite = async (direction: string, cseq: number) => {
      call.cseq = cseq;
      const before = sip!.received.length;
      sip!.send(call.request('INVITE', { body: call.sdp(port, direction, cseq) }));
      const answer = await sip!.waitFor(
        (m) => m.status === 200 && new RegExp(`CSeq: ${cseq} INVITE`).test(m.text),
        2_000,
        before,
      );
      sip!.send(call.request('ACK', { cseq }));
      return answer.text;
    };
    expect(await reinvite('sendonly', 2)).toMatch(/a=recvonly/);
    await new Promise((r) => setTimeout(r, 100));
    const held = packets;
    await new Promise((r) => setTimeout(r, 400));
    expect(packets).toBe(held);
    expect(await reinvite('inactive', 3)).toMatch(/a=inactive/);
    expect(await reinvite('sendrecv', 4)).toMatch(/a=sendrecv/);
    await new Promise((r) => setTimeout(r, 300));
    expect(packets).toBeGreaterThan(held + 5);

    call.cseq = 5;
    sip.send(call.request('BYE'));
    await sip.waitFor((m) => m.status === 200 && /CSeq: 5 BYE/.test(m.text));
    rtp.close();
    expect(bare.gateway.health.rtpPortsFree).toBe(bare.gateway.health.rtpPortsTotal);
  });

  it('sends the idle silence of the codec a re-INVITE moved to (A-law 0xd5, then μ-law 0xff)', async () => {
    const { bare, sip } = await setUp();
    const rtp = createSocket('udp4');
    await new Promise<void>((resolve) => rtp.bind(0, '127.0.0.1', resolve));
    const packets: { payloadType: number; payload: Buffer }[] = [];
    rtp.on('message', (data) => packets.push({ payloadType: data[1]! & 0x7f, payload: data.subarray(12) }));
    const call = new RawCall(sip);
    const port = rtp.address().port;
    sip.send(call.request('INVITE', { body: call.sdp(port) }));
    call.toTag = toTagOf((await sip.waitFor((m) => m.status === 200)).text);
    sip.send(call.request('ACK'));
    await expect.poll(() => packets.length, { timeout: 2_000 }).toBeGreaterThan(5);
    const alaw = packets.slice();
    expect(
      alaw.every((p) => p.payloadType === 8 && p.payload.length === 160 && p.payload.every((b) => b === 0xd5)),
    ).toBe(true);

    call.cseq = 2;
    const before = sip.received.length;
    sip.send(
      call.request('INVITE', { body: call.sdp(port, 'sendrecv', 2).replace('RTP/AVP 8 0 101', 'RTP/AVP 0 101') }),
    );
    const answer = await sip.waitFor((m) => m.status === 200 && /CSeq: 2 INVITE/.test(m.text), 2_000, before);
    expect(answer.text).toMatch(/m=audio \d+ RTP\/AVP 0/);
    sip.send(call.request('ACK', { cseq: 2 }));
    await expect.poll(() => packets.filter((p) => p.payloadType === 0).length, { timeout: 2_000 }).toBeGreaterThan(5);
    const ulaw = packets.filter((p) => p.payloadType === 0);
    expect(ulaw.every((p) => p.payload.length === 160 && p.payload.every((b) => b === 0xff))).toBe(true);

    call.cseq = 3;
    sip.send(call.request('BYE'));
    await sip.waitFor((m) => m.status === 200 && /CSeq: 3 BYE/.test(m.text));
    rtp.close();
    expect(bare.gateway.health.rtpPortsFree).toBe(bare.gateway.health.rtpPortsTotal);
  });

  it('answers 481 to a BYE for no dialog and 405 with Allow to REGISTER', async () => {
    const { sip } = await setUp();
    const call = new RawCall(sip);
    call.toTag = 'nosuchtag';
    sip.send(call.request('BYE'));
    expect((await sip.waitFor((m) => m.status !== undefined)).status).toBe(481);
    const other = new RawCall(sip);
    sip.send(other.request('REGISTER'));
    const refused = await sip.waitFor((m) => m.status === 405);
    expect(header(refused.text, 'Allow')).toMatch(/INVITE/);
  });

  it('takes a whole call over TCP from SIPp: INVITE, ACK, RTP, BYE on one connection', async () => {
    const { bare } = await setUp();
    const dir = await mkdtemp(join(tmpdir(), 'parley-sip-tcp-'));
    try {
      const pcap = join(dir, 'tone.pcap');
      await writePcap(pcap, rtpPackets(sineWave(440, 8_000, 8_000, 6_000)));
      const result = await runSipp({
        scenario: 'uac-pcap.xml',
        target: bare.gateway.sipPort,
        dir,
        service: '+14155550123',
        transport: 't1',
        values: { PCAP: pcap, HOLD_MS: 1_500, MEDIA_PORT: await freeMediaPort() },
        timeoutMs: 15_000,
      });
      expect(result.errors, result.stdout).toBe('');
      expect(result.code, result.stdout).toBe(0);
      expect(bare.offers).toBe(1);
      expect(bare.gateway.health).toMatchObject({ activeCalls: 0, rtpPortsFree: bare.gateway.health.rtpPortsTotal });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
