/**
 * The backchannel set (issue 19): calls in which the caller, while the agent answers, says "uh-huh", "okay", "yeah"
 * or "mm-hmm" over it. The engine should pause for it and go on — a false cut-off is an answer that ends
 * interrupted (its transcript line says so). Run after the ladder, on its own engine role in this process (a
 * handful of calls: no load to speak of), over the same NATS, with the load test's LLM and TTS and the probe's
 * recogniser (backchannel-stt.ts: no interim words). Measured at the carrier's side: whether each backchannel
 * brought a clear (the pause), and how long from the clear until the agent's audio came again.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { llmWorker, mediaStreamUrl, startEngineRole, startWorker, sttWorker, ttsWorker } from '@parley/engine';
import { namespacedBus, type Bus } from '@parley/engine/bus';
import { callCodecs, subjects, type CallEvent } from '@parley/engine/protocol';
import { SimStream } from '../carrier-sim/index.ts';
import { BACKCHANNEL_WORDS, backchannelStt } from './backchannel-stt.ts';
import { CALL_LATENCIES, callProviders } from './call-providers.ts';
import { loadCallSpec } from './caller-line.ts';
import { speechClip, type SpeechClip } from './speech-clip.ts';

/** Calls of the set, each saying every backchannel word once, one per answer. */
export const BACKCHANNEL_CALLS = 2;
/** The caller lets this much of the answer play before the backchannel, ms. */
const INTO_ANSWER_MS = 600;
/** Longest wait for the answer to start, and for it to end, ms. */
const ANSWER_TIMEOUT_MS = 20_000;

export interface BackchannelFigures {
  /** Backchannels said over the agent. */
  said: number;
  /** Of those, how many paused the agent (a clear), and after how many it spoke again. */
  paused: number;
  resumed: number;
  /** Answers that ended interrupted: the target is none. */
  falseCutOffs: number;
  /** Clear → the agent's audio again, ms, per resumed pause. */
  pauseMs: number[];
}

/** Runs the set on `bus` (a namespace of its own is taken); resolves with its figures. */
export async function runBackchannelSet(root: Bus, log: (line: string) => void): Promise<BackchannelFigures> {
  const bus = namespacedBus(root, `bench-bc-${randomBytes(4).toString('hex')}`);
  const providers = callProviders();
  const stt = backchannelStt(CALL_LATENCIES.sttFinalMs);
  const workers = [
    startWorker(bus, sttWorker([stt])),
    startWorker(bus, llmWorker([providers.llm])),
    startWorker(bus, ttsWorker([providers.tts])),
  ];
  const role = await startEngineRole(
    {
      llm: { baseUrl: 'http://bench.invalid', model: 'fixed-latency' },
      sttProvider: stt.name,
      ttsProvider: providers.tts.name,
      media: { port: 0, host: '127.0.0.1' },
    },
    bus,
    () => {},
  );
  const figures: BackchannelFigures = { said: 0, paused: 0, resumed: 0, falseCutOffs: 0, pauseMs: [] };
  try {
    const question = await speechClip();
    const words = await Promise.all(BACKCHANNEL_WORDS.map((word) => speechClip(word)));
    const calls = Array.from({ length: BACKCHANNEL_CALLS }, () => oneCall(bus, question, words, figures));
    await Promise.all(calls);
    log(
      `backchannel set: ${figures.said} said, ${figures.paused} paused, ${figures.resumed} resumed, ${figures.falseCutOffs} false cut-off(s)`,
    );
    return figures;
  } finally {
    await role.close();
    for (const worker of workers) await worker.stop();
  }
}

async function oneCall(bus: Bus, question: SpeechClip, words: SpeechClip[], figures: BackchannelFigures) {
  const spec = loadCallSpec();
  const events: CallEvent[] = [];
  const subscription = bus.subscribe(subjects.callEvents(spec.callId));
  void (async () => {
    for await (const message of subscription) events.push(callCodecs.event.decode(message.data));
  })();
  const reply = callCodecs.dispatchReply.decode(
    (await bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: 10_000 })).data,
  );
  if (!reply.ok || !reply.mediaUrl) throw new Error(`the engine refused the probe's call: ${JSON.stringify(reply)}`);
  const stream = await SimStream.connect({
    carrier: 'carrier-b',
    url: mediaStreamUrl(reply.mediaUrl, 'carrier-b', reply.streamToken),
    format: { encoding: 'mulaw', sampleRate: 8_000 },
  });
  // The carrier's side as it happens: each clear, and whether agent audio came after it.
  let clears = 0;
  let audio = 0;
  let clearAt: number | undefined;
  let finished = false;
  // Checked on every message, and once more when the socket closes: `finished` then lets its timer go.
  const watch = stream.until(
    () => {
      if (finished) return true;
      const now = performance.now();
      if (stream.record.clears.length > clears) {
        clears = stream.record.clears.length;
        figures.paused += 1;
        clearAt = now;
      }
      if (stream.record.audio.length > audio) {
        audio = stream.record.audio.length;
        if (clearAt !== undefined) {
          figures.resumed += 1;
          figures.pauseMs.push(now - clearAt);
          clearAt = undefined;
        }
      }
      return false;
    },
    'the end of the probe',
    86_400_000,
  );
  void watch.catch(() => {});
  try {
    await stream.until(() => stream.marks().includes('greeting'), 'the greeting played', ANSWER_TIMEOUT_MS);
    for (const [i, word] of words.entries()) {
      const lines = () => events.filter((e) => e.type === 'transcript' && e.speaker === 'assistant').length;
      const before = lines();
      const heard = stream.record.audio.length;
      await stream.say(question.samples, question.sampleRate);
      await stream.until(() => stream.record.audio.length > heard, 'the answer', ANSWER_TIMEOUT_MS);
      await stream.pause(INTO_ANSWER_MS);
      await stream.say(word.samples, word.sampleRate);
      figures.said += 1;
      const deadline = performance.now() + ANSWER_TIMEOUT_MS;
      while (lines() === before && performance.now() < deadline) await sleep(50);
      const line = events.filter((e) => e.type === 'transcript' && e.speaker === 'assistant').at(-1);
      if (lines() === before) throw new Error(`no answer line after backchannel ${i + 1}`);
      if (line?.type === 'transcript' && line.interrupted) figures.falseCutOffs += 1;
      await stream.pause(300);
    }
  } finally {
    finished = true;
    subscription.unsubscribe();
    await stream.hangup();
  }
}
