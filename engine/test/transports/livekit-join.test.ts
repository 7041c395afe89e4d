/**
 * LiveKit mode's room join, as far as it can run without a LiveKit server (none can be installed here): a call
 * dispatched with a room joins it through @livekit/rtc-node's native client at once, and a room that refuses the
 * connection gives the call up as media_failed, its workers released, the refusal logged with the room's name.
 * The media path in a real room is not exercised (README says so).
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fabrics } from '../support/bus-fabric.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { scriptedChat, scriptedStt } from '../support/scripted-providers.ts';
import { carrierCallSpec, startMediaEngine, type MediaEngine } from './support/media-engine.ts';

const [fabric] = fabrics();
let engine: MediaEngine;

beforeAll(async () => {
  engine = await startMediaEngine(fabric!, { stt: scriptedStt([]), tts: createFliteTts(), llm: scriptedChat([]) });
});

afterAll(async () => {
  await engine?.close();
  await fabric!.close();
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('joins the room at dispatch, and gives the call up as media_failed when the room refuses the connection', async () => {
  const spec = {
    ...carrierCallSpec(),
    livekit: { url: `ws://127.0.0.1:${await closedPort()}`, room: 'room-1', token: 'agent.access.token' },
  };
  await engine.dispatch(spec);
  const ended = await engine.waitFor(spec.callId, (e) => e.type === 'ended', 20_000);
  expect(ended).toMatchObject({ reason: 'media_failed', outcome: 'failed' });
  const refused = await engine.waitForLog((l) => l.event === 'livekit join failed' && l.detail.callId === spec.callId);
  expect(refused.detail).toMatchObject({ room: 'room-1', error: expect.stringMatching(/refused|connect/i) });
}, 30_000);
