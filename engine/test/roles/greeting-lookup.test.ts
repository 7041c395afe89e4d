/**
 * The engine's side of the greeting cache, against a responder speaking the wire protocol: a hit becomes 16 kHz
 * pieces ready to play; a miss, a silent or absent control plane, or a malformed reply fall back to synthesis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBus } from '../../src/bus/index.ts';
import {
  encodeAudioFrame,
  greetingCodecs,
  GREETING_LOOKUP_TIMEOUT_MS,
  queues,
  subjects,
  type GreetingAudioRequest,
} from '../../src/protocol/index.ts';
import { cachedGreeting } from '../../src/roles/greeting-lookup.ts';
import { callSpec } from '../session/call-harness.ts';

let bus: MemoryBus;
afterEach(async () => {
  await bus?.close();
});

/** A control plane that answers every lookup with `answer(request)`. */
function respondWith(
  answer: (request: GreetingAudioRequest) => Uint8Array | string | undefined,
): GreetingAudioRequest[] {
  const seen: GreetingAudioRequest[] = [];
  const subscription = bus.subscribe(subjects.greetingAudio(), { queue: queues.controlPlane });
  void (async () => {
    for await (const message of subscription) {
      const request = greetingCodecs.request.decode(message.data);
      seen.push(request);
      const reply = answer(request);
      if (reply !== undefined) message.respond(reply);
    }
  })();
  return seen;
}

const agent = callSpec({ version: 7, voiceId: 'kal16', voiceSpeed: 1.1 }).agent;

describe('the greeting lookup', () => {
  it('asks for this call’s text and voice, and cuts a hit into 100 ms pieces at 16 kHz', async () => {
    bus = new MemoryBus();
    const audio = Int16Array.from({ length: 8000 }, (_, i) => (i % 100) * 10); // 1 s at 8 kHz
    const seen = respondWith(() =>
      encodeAudioFrame({ sampleRate: 8000, requestNumber: 0, sequence: 0, samples: audio }),
    );
    const pieces = await cachedGreeting(bus, agent, 'Hi Ravi, this is Maya.', new AbortController().signal);
    expect(seen).toEqual([
      {
        agentId: 'agent',
        agentVersion: 7,
        text: 'Hi Ravi, this is Maya.',
        voiceProvider: null,
        voiceId: 'kal16',
        voiceSpeed: 1.1,
      },
    ]);
    expect(pieces).toHaveLength(10);
    expect(pieces!.reduce((n, p) => n + p.length, 0)).toBe(16_000);
  });

  it('gives nothing on a miss, a malformed reply, or no answer in time', async () => {
    bus = new MemoryBus();
    let mode: 'miss' | 'junk' | 'silent' = 'miss';
    respondWith(() =>
      mode === 'miss' ? greetingCodecs.miss.encode({ found: false }) : mode === 'junk' ? '{"found":true}' : undefined,
    );
    const signal = new AbortController().signal;
    expect(await cachedGreeting(bus, agent, 'Hello', signal)).toBeUndefined();
    mode = 'junk';
    expect(await cachedGreeting(bus, agent, 'Hello', signal)).toBeUndefined();
    mode = 'silent';
    const started = performance.now();
    expect(await cachedGreeting(bus, agent, 'Hello', signal)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(GREETING_LOOKUP_TIMEOUT_MS + 200);
  });

  it('does not ask without a control plane, an agent version, or a greeting', async () => {
    bus = new MemoryBus();
    expect(await cachedGreeting(bus, agent, 'Hello', new AbortController().signal)).toBeUndefined(); // no responders
    const seen = respondWith(() => greetingCodecs.miss.encode({ found: false }));
    expect(
      await cachedGreeting(bus, { ...agent, version: undefined }, 'Hello', new AbortController().signal),
    ).toBeUndefined();
    expect(await cachedGreeting(bus, agent, '', new AbortController().signal)).toBeUndefined();
    expect(seen).toHaveLength(0);
  });
});
