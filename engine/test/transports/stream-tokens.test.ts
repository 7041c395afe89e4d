/**
 * Every media stream is authorised by the signed, short-lived, single-use token of its call: the media server
 * refuses an unknown, expired, reused or tampered one by closing the websocket with 1008 (policy violation), and
 * no session comes of it. A path that is not a media stream is not even upgraded.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaStreamUrl } from '../../src/roles/media-endpoint.ts';
import { StreamTokens } from '../../src/roles/stream-tokens.ts';
import { SimStream } from '../fakes/carrier-sim/index.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { carrierCallSpec, startMediaEngine, type MediaEngine } from './support/media-engine.ts';

const POLICY_VIOLATION = 1008;
/** How long a refused call is watched for a session that should never exist, ms. */
const NO_SESSION_WATCH_MS = 300;

const [fabric] = fabrics();
afterAll(() => fabric!.close());

describe('stream tokens at the media server', () => {
  let engine: MediaEngine;
  const secret = randomBytes(32);
  beforeAll(async () => {
    engine = await startMediaEngine(
      fabric!,
      { stt: scriptedStt([]), tts: toneTts('tone', 20), llm: scriptedChat([{ text: 'Hello.' }]) },
      { tokenSecret: secret.toString('base64') },
    );
  });
  afterAll(async () => {
    await engine?.close();
  });

  async function refused(url: string): Promise<string> {
    const stream = await SimStream.connect({ carrier: 'carrier-b', url });
    const closed = await stream.closed;
    expect(closed.code).toBe(POLICY_VIOLATION);
    return closed.reason;
  }

  async function expectNoSession(callId: string): Promise<void> {
    await new Promise((r) => setTimeout(r, NO_SESSION_WATCH_MS));
    expect(engine.eventsOf(callId).filter((e) => e.type === 'state')).toEqual([]);
    expect(engine.role.activeCalls).toBe(0);
  }

  it('runs the call for its token, once, and refuses the same token a second time', async () => {
    const spec = carrierCallSpec();
    const call = await engine.dispatch(spec);
    const first = await SimStream.connect({ carrier: 'carrier-b', url: call.streamUrl('carrier-b') });
    await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
    expect(engine.role.activeCalls).toBe(1);

    expect(await refused(call.streamUrl('carrier-b'))).toBe('stream token refused: reused');
    expect(first.isOpen).toBe(true);
    expect(engine.role.activeCalls).toBe(1);
    await first.hangup();
    await engine.waitFor(spec.callId, (e) => e.type === 'ended');
  });

  it('refuses a token it never issued, though signed with its own key', async () => {
    const callId = `call${randomBytes(6).toString('hex')}`;
    const { token } = new StreamTokens(secret).issue(callId, 60_000);
    expect(await refused(mediaStreamUrl(engine.role.mediaUrl!, 'carrier-b', token))).toBe(
      'stream token refused: unknown',
    );
    await expectNoSession(callId);
  });

  it('refuses a token that is not a token at all', async () => {
    expect(await refused(mediaStreamUrl(engine.role.mediaUrl!, 'carrier-a', 'not-a-token'))).toBe(
      'stream token refused: malformed',
    );
  });

  it('refuses a tampered token: another call in it, or a MAC from another key', async () => {
    const spec = carrierCallSpec();
    const call = await engine.dispatch(spec);
    const [, expiry, nonce, mac] = call.streamToken.split('.');
    const otherCall = `${Buffer.from('call-of-someone-else').toString('base64url')}.${expiry}.${nonce}.${mac}`;
    expect(await refused(mediaStreamUrl(call.mediaUrl, 'carrier-c', otherCall))).toBe('stream token refused: forged');
    const later = `${call.streamToken.split('.')[0]}.${(Date.now() + 3_600_000).toString(36)}.${nonce}.${mac}`;
    expect(await refused(mediaStreamUrl(call.mediaUrl, 'carrier-c', later))).toBe('stream token refused: forged');
    const { token: foreign } = new StreamTokens(randomBytes(32)).issue(spec.callId, 60_000);
    expect(await refused(mediaStreamUrl(call.mediaUrl, 'carrier-c', foreign))).toBe('stream token refused: forged');
    await expectNoSession(spec.callId);

    // The genuine token still works afterwards.
    const stream = await SimStream.connect({ carrier: 'carrier-c', url: call.streamUrl('carrier-c') });
    await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
    await stream.hangup();
    await engine.waitFor(spec.callId, (e) => e.type === 'ended');
  });

  it('answers 404 to a path that is not a media stream, and to a carrier without one', async () => {
    const spec = carrierCallSpec();
    const call = await engine.dispatch(spec);
    await expect(
      SimStream.connect({ carrier: 'carrier-b', url: `${call.mediaUrl}/media/carrier-d/${call.streamToken}` }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      SimStream.connect({ carrier: 'carrier-b', url: `${call.mediaUrl}/elsewhere/${call.streamToken}` }),
    ).rejects.toMatchObject({ status: 404 });
    // Nothing was spent: the call's own stream still opens.
    const stream = await SimStream.connect({ carrier: 'carrier-b', url: call.streamUrl('carrier-b') });
    await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
    await stream.hangup();
  });
});

describe('an expired stream token', () => {
  let engine: MediaEngine;
  beforeAll(async () => {
    engine = await startMediaEngine(
      fabric!,
      { stt: scriptedStt([]), tts: toneTts('tone', 20), llm: scriptedChat([{ text: 'Hello.' }]) },
      { mediaTimeoutMs: 300 },
    );
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('is refused once the ring timeout has passed, and the call has ended as never connected', async () => {
    const spec = carrierCallSpec();
    const call = await engine.dispatch(spec);
    await engine.waitFor(spec.callId, (e) => e.type === 'ended');
    const stream = await SimStream.connect({ carrier: 'carrier-a', url: call.streamUrl('carrier-a') });
    expect(await stream.closed).toEqual({ code: POLICY_VIOLATION, reason: 'stream token refused: expired' });
    expect(engine.eventsOf(spec.callId)).toEqual([
      expect.objectContaining({ type: 'ended', reason: 'media_never_connected', outcome: 'no_answer' }),
    ]);
    expect(engine.role.activeCalls).toBe(0);
  });
});
