/**
 * An engine learns over the bus that a language model is there (docs/architecture.md §2, §4; issue 21's "Config"
 * row): the engine is started as `parley start --roles engine` starts it, with no PARLEY_LLM_* at all, and the
 * llm-worker role alone holds the fake OpenAI server's settings and key. Every role is its own NATS connection, as
 * separate processes are. A PROMPT call gets the model's answer while an llm worker is alive, and says that no
 * language model is there once none is; the llm worker's heartbeat names its model and never carries its key.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES } from '../../src/audio/format.ts';
import { namespacedBus, NatsBus, type Bus } from '../../src/bus/index.ts';
import { callCodecs, codecs, subjects, type CallEvent } from '../../src/protocol/index.ts';
import type { EngineRole } from '../../src/roles/engine-role.ts';
import type { CallSummary } from '../../src/session/call-session.ts';
import { startEngineRole } from '../../src/roles/start-engine-role.ts';
import { startLlmWorkerRole, type WorkerRoleHandle } from '../../src/roles/worker-roles.ts';
import { NO_LLM_MESSAGE } from '../../src/session/no-model-responder.ts';
import { memoryTransport, type MemoryCaller } from '../../src/transports/memory/memory-transport.ts';
import { sttWorker } from '../../src/workers/stt/stt-worker.ts';
import { ttsWorker } from '../../src/workers/tts/tts-worker.ts';
import { startWorker, type WorkerHandle } from '../../src/workers/worker-host.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/index.ts';
import { callSpec } from '../session/call-harness.ts';
import { scriptedStt, toneTts } from '../support/scripted-providers.ts';

const natsUrl = process.env.NATS_URL ?? '';
const API_KEY = `sk-discovery-${randomBytes(12).toString('hex')}`;
const MODEL = 'gpt-4o-mini';
const ANSWER = 'We open at nine every morning.';

describe.skipIf(natsUrl === '')('an engine with no language model settings, on NATS', () => {
  const namespace = `test.${randomBytes(5).toString('hex')}`;
  const buses: Bus[] = [];
  const workers: WorkerHandle[] = [];
  let fake: FakeOpenAi;
  let llmRole: WorkerRoleHandle;
  let engine: EngineRole;
  /** The test's own connection: dispatches, call events, heartbeats. */
  let bus: Bus;
  /** Every llm heartbeat heard, as it came over the wire. */
  const llmBeats: string[] = [];
  /** What the engine logged at warn. */
  const engineWarnings: string[] = [];

  /** A bus of its own for one more "process". */
  async function connect(): Promise<Bus> {
    const connected = namespacedBus(await NatsBus.connect(natsUrl, { name: 'parley-llm-discovery-test' }), namespace);
    buses.push(connected);
    return connected;
  }

  beforeAll(async () => {
    fake = await startFakeOpenAi({ apiKey: API_KEY, models: [MODEL] });
    bus = await connect();
    const heartbeats = bus.subscribe(subjects.allWorkerHeartbeats());
    void (async () => {
      for await (const message of heartbeats) {
        const text = new TextDecoder().decode(message.data);
        if (codecs.heartbeat.decode(message.data).kind === 'llm') llmBeats.push(text);
      }
    })();
    // Speech workers every call needs, each its own process.
    workers.push(startWorker(await connect(), sttWorker([scriptedStt(['When do you open?', 'When do you open?'])])));
    workers.push(startWorker(await connect(), ttsWorker([toneTts('tone', 20)])));
    // The llm-worker role as `parley start --roles llm-worker` runs it: the only holder of the model's settings.
    llmRole = await startLlmWorkerRole(
      {
        sttProvider: 'pocketsphinx',
        ttsProvider: 'flite',
        llm: { baseUrl: fake.baseUrl, apiKey: API_KEY, model: MODEL },
      },
      await connect(),
      () => {},
    );
    // The engine role as `parley start --roles engine` runs it, with no `llm` in its configuration.
    engine = await startEngineRole(
      { sttProvider: 'scripted-stt', ttsProvider: 'tone', vad: 'energy' },
      await connect(),
      (event, _detail, level) => {
        if (level === 'warn') engineWarnings.push(event);
      },
    );
  });

  afterAll(async () => {
    await engine?.close();
    await llmRole?.close();
    for (const worker of workers) await worker.stop({ handBack: false });
    for (const connected of buses) await connected.close();
    await fake?.close();
  });

  /** Dispatches a PROMPT call, connects its media, and has the caller ask one question. */
  async function promptCall(): Promise<{
    caller: MemoryCaller;
    events: CallEvent[];
    ended: Promise<CallSummary>;
  }> {
    const spec = callSpec();
    expect(spec.agent.builderMode).toBe('PROMPT');
    const events: CallEvent[] = [];
    const subscription = bus.subscribe(subjects.callEvents(spec.callId));
    void (async () => {
      for await (const message of subscription) events.push(callCodecs.event.decode(message.data));
    })();
    const reply = callCodecs.dispatchReply.decode(
      (await bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: 15_000 })).data,
    );
    if (!reply.ok) throw new Error(`dispatch refused: ${reply.code} ${reply.message}`);
    const { transport, caller } = memoryTransport();
    const ended = engine.attach(reply.streamToken, transport);
    // The greeting, then the caller: 600 ms of voice and a second of silence, in real time.
    await expect.poll(() => caller.heard.length, { timeout: 10_000 }).toBeGreaterThan(5);
    let phase = 0;
    for (let i = 0; i < 80; i += 1) {
      const voiced = i < 30;
      caller.speak(
        Int16Array.from({ length: ENGINE_FRAME_SAMPLES }, () =>
          voiced ? Math.round(8000 * Math.sin(phase++ * 0.15)) : 0,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { caller, events, ended };
  }

  it("answers a PROMPT call with the model's answer, through the llm worker", async () => {
    fake.chat.enqueue({ tokens: ANSWER.split(/(?<= )/) });
    const { caller, events, ended } = await promptCall();
    await expect
      .poll(() => events.some((e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === ANSWER), {
        timeout: 15_000,
      })
      .toBe(true);
    expect(fake.chat.requests).toHaveLength(1);
    expect(engineWarnings.filter((line) => line.includes('language model'))).toEqual([]);
    expect(fake.unauthorized).toBe(0);
    caller.hangup();
    expect((await ended).reason).toBe('caller_hangup');
  }, 30_000);

  it("announces the worker's model in its heartbeat, and never its key", () => {
    expect(llmBeats.length).toBeGreaterThan(0);
    for (const beat of llmBeats) {
      expect(JSON.parse(beat)).toMatchObject({ kind: 'llm', models: [MODEL] });
      expect(beat).not.toContain(API_KEY);
      expect(beat).not.toContain('sk-');
    }
  });

  it('says no language model is there once no llm worker is alive', async () => {
    await llmRole.close(); // hands back: its last heartbeat says it is draining
    const requests = fake.chat.requests.length;
    const { ended, events } = await promptCall();
    const summary = await ended;
    expect(summary.reason).toBe('no_language_model');
    // The call's events come over the test's own connection, shortly after the call has ended.
    const said = () => events.flatMap((e) => (e.type === 'transcript' && e.speaker === 'assistant' ? [e.text] : []));
    await expect.poll(said, { timeout: 5_000 }).toContain(NO_LLM_MESSAGE);
    await expect
      .poll(() => events.find((e) => e.type === 'ended'), { timeout: 5_000 })
      .toMatchObject({ reason: 'no_language_model' });
    expect(fake.chat.requests).toHaveLength(requests);
    // The operator is told why in the engine's log, at warn.
    expect(engineWarnings).toContain('no llm worker announces a language model: this PROMPT call will say so');
  }, 30_000);
});
