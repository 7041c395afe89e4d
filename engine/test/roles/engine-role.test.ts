/**
 * The engine role as the control plane sees it: a dispatch over the bus, a stream token back, the call's media
 * attaching with that token, and the call's events on the bus — with the greeting synthesised while it rang.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBus } from '../../src/bus/index.ts';
import {
  callCodecs,
  engineCodecs,
  subjects,
  type CallEvent,
  type EngineHeartbeat,
  type WorkerKind,
} from '../../src/protocol/index.ts';
import { DRAIN_CLOSING_LINE, EngineRole } from '../../src/roles/engine-role.ts';
import { MISSING_WORKER_ADVICE } from '../../src/roles/missing-worker.ts';
import { memoryTransport } from '../../src/transports/memory/memory-transport.ts';
import { llmWorker } from '../../src/workers/llm/llm-worker.ts';
import { sttWorker } from '../../src/workers/stt/stt-worker.ts';
import { ttsWorker } from '../../src/workers/tts/tts-worker.ts';
import { startWorker, type WorkerHandle } from '../../src/workers/worker-host.ts';
import { callSpec } from '../session/call-harness.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** @param options.without a kind of worker not started, as on a machine missing its package */
async function engine(options: { mediaTimeoutMs?: number; without?: WorkerKind } = {}) {
  const bus = new MemoryBus();
  const tts = toneTts('tone', 20);
  const workers: WorkerHandle[] = [
    options.without === 'stt' ? undefined : startWorker(bus, sttWorker([scriptedStt(['hello there'])])),
    options.without === 'tts' ? undefined : startWorker(bus, ttsWorker([tts])),
    options.without === 'llm'
      ? undefined
      : startWorker(bus, llmWorker([scriptedChat([{ text: 'Hi, how can I help?' }])])),
  ].filter((worker) => worker !== undefined);
  const role = new EngineRole(
    { sttProvider: 'scripted-stt', ttsProvider: 'tone', llm: { baseUrl: 'http://unused', model: 'm' } },
    bus,
    () => {},
    options,
  ).start();
  const events: CallEvent[] = [];
  const subscription = bus.subscribe(subjects.allCallEvents());
  void (async () => {
    for await (const m of subscription) events.push(callCodecs.event.decode(m.data));
  })();
  cleanups.push(async () => {
    await role.close();
    for (const w of workers) await w.stop();
    await bus.close();
  });
  const dispatch = async (payload: string) =>
    callCodecs.dispatchReply.decode((await bus.request(subjects.dispatch(), payload, { timeoutMs: 15_000 })).data);
  return { bus, role, tts, events, dispatch, workers };
}

describe('the engine role', () => {
  it('accepts a dispatched call, greets from audio made while ringing, and runs the call on its media', async () => {
    const { role, tts, events, dispatch } = await engine();
    const spec = callSpec();
    const reply = await dispatch(callCodecs.spec.encode(spec));
    if (!reply.ok) throw new Error(reply.message);
    expect(reply.engineId).toBe(role.engineId);
    // The greeting is synthesised before any media arrives.
    await expect.poll(() => tts.spoken).toEqual(['Hi Ravi, this is Maya.']);

    const { transport, caller } = memoryTransport();
    const running = role.attach(reply.streamToken, transport);
    expect(role.activeCalls).toBe(1);
    await expect.poll(() => caller.heard.length, { timeout: 5_000 }).toBeGreaterThan(10);
    expect(tts.spoken).toHaveLength(1); // played from the ringing-time audio, not synthesised again
    caller.hangup();
    const summary = await running;
    expect(summary.reason).toBe('caller_hangup');
    expect(role.activeCalls).toBe(0);
    await expect.poll(() => events.some((e) => e.type === 'ended')).toBe(true);
    const ended = events.find((e) => e.type === 'ended');
    expect(ended).toMatchObject({ type: 'ended', latency: { greetingMs: expect.any(Number) } });
    // Warm greeting: the first frame leaves within a few clock ticks of the answer.
    expect((ended as { latency: { greetingMs: number } }).latency.greetingMs).toBeLessThan(200);
  });

  it('refuses a malformed dispatch, and media with an unknown token', async () => {
    const { role, dispatch } = await engine();
    const refused = await dispatch('{"callId": 5}');
    expect(refused).toMatchObject({ ok: false, code: 'bad_message' });
    await expect(role.attach('no-such-token', memoryTransport().transport)).rejects.toMatchObject({
      code: 'bad_stream_token',
    });
  });

  it.each(['stt', 'tts'] as const)(
    'refuses a call when no %s worker answers, saying what to install, and closes the streams it opened',
    async (missing) => {
      const { dispatch, workers } = await engine({ without: missing });
      const reply = await dispatch(callCodecs.spec.encode(callSpec()));
      expect(reply).toEqual({ ok: false, code: 'no_worker', message: MISSING_WORKER_ADVICE[missing], retryable: true });
      expect(MISSING_WORKER_ADVICE[missing]).toMatch(/install .*\(apt-get install .*\).* and restart, or set PARLEY_/);
      // The workers that did take a stream for the call are let go of it, not left waiting for its audio.
      await expect.poll(() => workers.map((w) => w.streamCount), { timeout: 3_000 }).toEqual([0, 0]);
    },
    20_000,
  );

  it('gives up a call whose media never arrives, reporting no answer', async () => {
    const { events, dispatch } = await engine({ mediaTimeoutMs: 300 });
    const spec = callSpec();
    const reply = await dispatch(callCodecs.spec.encode(spec));
    expect(reply.ok).toBe(true);
    await expect
      .poll(() => events.find((e) => e.type === 'ended'), { timeout: 3_000 })
      .toMatchObject({ reason: 'media_never_connected', outcome: 'no_answer' });
  });

  it("waits for a call's media as long as its spec asks (a dialled leg rings first), then gives it up", async () => {
    const { role, events, dispatch } = await engine({ mediaTimeoutMs: 300 });
    const spec = callSpec();
    const reply = await dispatch(
      callCodecs.spec.encode({ ...spec, limits: { ...spec.limits, mediaConnectMs: 1_500 } }),
    );
    if (!reply.ok) throw new Error(reply.message);
    // Past the engine's own 300 ms the call is still waiting, and its token still claims it.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(events.some((e) => e.type === 'ended')).toBe(false);
    const { transport, caller } = memoryTransport();
    const running = role.attach(reply.streamToken, transport);
    caller.hangup();
    expect((await running).reason).toBe('caller_hangup');

    // One never claimed is given up at its own time, not the engine's.
    const late = await dispatch(
      callCodecs.spec.encode({ ...callSpec(), limits: { ...spec.limits, mediaConnectMs: 1_000 } }),
    );
    expect(late.ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(events.filter((e) => e.type === 'ended')).toHaveLength(1);
    await expect.poll(() => events.filter((e) => e.type === 'ended').length, { timeout: 3_000 }).toBe(2);
  });

  it('follows control messages: say, then end', async () => {
    const { bus, role, tts, dispatch } = await engine();
    const spec = callSpec({ greetingMessage: null });
    const reply = await dispatch(callCodecs.spec.encode(spec));
    if (!reply.ok) throw new Error(reply.message);
    const { transport } = memoryTransport();
    const running = role.attach(reply.streamToken, transport);
    bus.publish(subjects.callControl(spec.callId), callCodecs.control.encode({ type: 'say', text: 'Please hold.' }));
    await expect.poll(() => tts.spoken).toContain('Please hold.');
    bus.publish(subjects.callControl(spec.callId), callCodecs.control.encode({ type: 'end', reason: 'operator' }));
    expect((await running).reason).toBe('operator');
  });
});

describe('the engine role draining (docs/architecture.md §18)', () => {
  /** The engine's heartbeats as the control planes hear them. */
  function heartbeats(bus: MemoryBus, engineId: string): EngineHeartbeat[] {
    const beats: EngineHeartbeat[] = [];
    const subscription = bus.subscribe(subjects.engineHeartbeat(engineId));
    void (async () => {
      for await (const m of subscription) beats.push(engineCodecs.heartbeat.decode(m.data));
    })();
    cleanups.push(() => subscription.unsubscribe());
    return beats;
  }

  it('takes no new call, ends at once a call whose media has not come, and lets a running call finish', async () => {
    const { bus, role, events, dispatch } = await engine();
    const beats = heartbeats(bus, role.engineId);
    const running = callSpec();
    const waiting = callSpec();
    const first = await dispatch(callCodecs.spec.encode(running));
    const second = await dispatch(callCodecs.spec.encode(waiting));
    if (!first.ok || !second.ok) throw new Error('the calls were refused');
    const { transport, caller } = memoryTransport();
    const call = role.attach(first.streamToken, transport);
    await expect
      .poll(() => beats.at(-1)?.calls.toSorted(), { timeout: 3_000 })
      .toEqual([running.callId, waiting.callId].toSorted());

    const drained = role.drain(60_000);
    // The call not yet answered ends at once, as a failure the control plane finishes (and hangs up).
    await expect
      .poll(() => events.find((e) => e.type === 'ended'), { timeout: 3_000 })
      .toMatchObject({ reason: 'engine_draining', outcome: 'failed', atEpochMs: expect.any(Number) });
    await expect
      .poll(() => beats.at(-1), { timeout: 3_000 })
      .toMatchObject({ draining: true, calls: [running.callId] });
    // The queue group has no member left here: a new dispatch finds nobody.
    await expect(dispatch(callCodecs.spec.encode(callSpec()))).rejects.toMatchObject({ code: 'no_responders' });
    await expect(role.attach(second.streamToken, memoryTransport().transport)).rejects.toMatchObject({
      code: 'bad_stream_token',
    });
    // The running call goes on until the caller hangs up; then the drain is over, long before its deadline.
    expect(role.activeCalls).toBe(1);
    caller.hangup();
    expect((await call).reason).toBe('caller_hangup');
    await drained;
  });

  it('ends the calls still running at its deadline with a closing line', async () => {
    const { role, tts, events, dispatch } = await engine();
    const spec = callSpec({ greetingMessage: null });
    const reply = await dispatch(callCodecs.spec.encode(spec));
    if (!reply.ok) throw new Error(reply.message);
    const { transport, caller } = memoryTransport();
    const call = role.attach(reply.streamToken, transport);
    await role.drain(300);
    const summary = await call;
    expect(summary).toMatchObject({ reason: 'engine_shutdown', outcome: 'completed' });
    expect(tts.spoken).toContain(DRAIN_CLOSING_LINE);
    expect(caller.heard.length).toBeGreaterThan(0);
    expect(events.find((e) => e.type === 'ended')).toMatchObject({ reason: 'engine_shutdown', outcome: 'completed' });
  });
});
