/**
 * One simulated call, from the carrier's side: dispatched to the engine over the bus as the control plane does
 * (a CallSpec on `v1.engine.dispatch`), rung for a while, then connected to the engine's media server with the
 * carrier simulator's stream (SimStream: real-time 20 ms μ-law frames, marks echoed, clears honoured). After the
 * greeting the caller says the same sentence over and over, INTER_UTTERANCE_MS of silence between, whatever the
 * agent does, and a CallMeter is told of every utterance start and end and every agent message and clear.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mediaStreamUrl } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects, type CallSpec, type LatencyReport } from '@parley/engine/protocol';
import { SimStream, type SimCarrier, type SimFormat } from '../carrier-sim/index.ts';
import { benchCallSpec } from '../engine/conversation-rig.ts';
import { CallMeter } from './call-meter.ts';
import { CALL_LATENCIES } from './call-providers.ts';
import type { CallerStreamEnd } from './messages.ts';
import type { SpeechClip } from './speech-clip.ts';

/** Silence between the caller's utterances, ms (the methodology). */
export const INTER_UTTERANCE_MS = 700;
/**
 * The agent's endpointing silence, ms: the fake STT's final delay (200 ms). The turn ends once both the silence and
 * the final are in, and they come together, so endpointing adds only what the engine's VAD holds on past the end
 * of speech. Shorter, the engine pauses its recogniser feed in the short gaps between words, the fake STT hears
 * nothing for 200 ms and sends a final in mid-sentence; longer (600 ms, the phone default), every turn waits the
 * difference and the reply starts after the caller's next sentence has begun.
 */
export const ENDPOINTING_MS = CALL_LATENCIES.sttFinalMs;
/** The agent's greeting: 22 characters, about 1.4 s of the fake TTS's audio. */
export const GREETING = 'Hello, how can I help?';
/** The caller first lets the greeting play this long, ms, then waits a random share of one utterance cycle more. */
const GREETING_ALLOWANCE_MS = 2_000;
/** How long the engine may take to accept a call, ms. */
const DISPATCH_TIMEOUT_MS = 10_000;
/** After the hang-up, how long the engine may take to publish the call's end (with its latency report), ms. */
const ENDED_TIMEOUT_MS = 10_000;
/** A hang-up waits at most this long for a quiet moment (two cycles of the caller's sentence), ms. */
const QUIET_WAIT_MS = 8_000;
/** SimStream's `until` wants a time limit; the watch ends long before this, ms (one day). */
const WATCH_LIMIT_MS = 86_400_000;
/** Both carriers stream μ-law at 8 kHz (carrier-a as the answer XML's contentType asks). */
const MULAW_8K: SimFormat = { encoding: 'mulaw', sampleRate: 8_000 };
/** The stream clock's period, ms. */
const TICK_MS = 20;

export function loadCallSpec(): CallSpec {
  const spec = benchCallSpec();
  return { ...spec, agent: { ...spec.agent, greetingMessage: GREETING, turn: { endpointingMs: ENDPOINTING_MS } } };
}

export class CallerLine {
  readonly callId: string;
  readonly carrier: SimCarrier;
  readonly meter: CallMeter;
  readonly #stream: SimStream;
  /** The engine's `ended` event's latency report; undefined if none came. */
  readonly #ended: Promise<LatencyReport | undefined>;
  readonly #clip: SpeechClip;
  readonly #head: Int16Array;
  readonly #rest: Int16Array;
  readonly #silence: Int16Array;
  #stopped = false;
  /** Set while a hang-up waits for a quiet moment on the line. */
  #onQuiet: (() => void) | undefined;

  private constructor(
    callId: string,
    carrier: SimCarrier,
    stream: SimStream,
    ended: Promise<LatencyReport | undefined>,
    clip: SpeechClip,
  ) {
    this.callId = callId;
    this.carrier = carrier;
    this.#stream = stream;
    this.#ended = ended;
    this.#clip = clip;
    // The first frame on its own, so that its send can be timed: that is when the caller starts speaking.
    const frame = (clip.sampleRate * TICK_MS) / 1000;
    this.#head = clip.samples.subarray(0, frame);
    this.#rest = clip.samples.subarray(frame);
    this.#silence = new Int16Array((clip.sampleRate * INTER_UTTERANCE_MS) / 1000);
    this.meter = new CallMeter(stream.format.sampleRate);
    this.meter.streamStarted(performance.now());
    void stream.until(() => this.#observe(), 'the end of the run', WATCH_LIMIT_MS).catch(() => {});
  }

  /**
   * Dispatches a call, lets it ring `ringMs`, opens its stream and starts the caller. The call's events are read
   * off the bus as the control plane reads them, for the engine's own latency report at the end.
   */
  static async open(bus: Bus, carrier: SimCarrier, ringMs: number, clip: SpeechClip): Promise<CallerLine> {
    const spec = loadCallSpec();
    const ended = endedReport(bus, spec.callId);
    let stream: SimStream;
    try {
      const reply = callCodecs.dispatchReply.decode(
        (await bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: DISPATCH_TIMEOUT_MS })).data,
      );
      if (!reply.ok) throw new Error(`the engine refused the call: ${reply.code}: ${reply.message}`);
      if (!reply.mediaUrl) throw new Error('the engine runs no media server (its dispatch reply has no mediaUrl)');
      await sleep(ringMs);
      stream = await SimStream.connect({
        carrier,
        url: mediaStreamUrl(reply.mediaUrl, carrier, reply.streamToken),
        format: MULAW_8K,
      });
    } catch (error) {
      ended.stop();
      throw error;
    }
    const line = new CallerLine(spec.callId, carrier, stream, ended.report, clip);
    const cycleMs = (clip.samples.length * 1000) / clip.sampleRate + INTER_UTTERANCE_MS;
    const leadInFrames = Math.round((GREETING_ALLOWANCE_MS + Math.random() * cycleMs) / TICK_MS);
    void stream.say(new Int16Array((leadInFrames * clip.sampleRate * TICK_MS) / 1000), clip.sampleRate);
    line.#speak();
    return line;
  }

  /** Queues one utterance and the silence after it; the next is queued the moment this one has been said. */
  #speak(): void {
    const rate = this.#clip.sampleRate;
    void this.#stream.say(this.#head, rate).then(() => {
      if (!this.#stopped) this.meter.utteranceStarted(performance.now());
    });
    void this.#stream.say(this.#rest, rate).then(() => {
      if (this.#stopped) return;
      this.meter.utteranceEnded(performance.now());
      this.#speak();
    });
    void this.#stream.say(this.#silence, rate);
  }

  /**
   * Called by the stream after every message and tick. A message adds one piece to `record.audio` (or one clear);
   * each is handed to the meter and dropped, so a long run keeps no audio.
   */
  #observe(): boolean {
    if (this.#stopped) return true;
    const now = performance.now();
    const { record } = this.#stream;
    for (const piece of record.audio) this.meter.agentAudio(now, piece.length);
    for (let i = 0; i < record.clears.length; i++) this.meter.clearArrived(now);
    record.audio.length = 0;
    record.clears.length = 0;
    record.played.length = 0;
    record.marks.length = 0;
    if (this.#onQuiet && this.meter.lineQuiet(now)) this.#onQuiet();
    return false;
  }

  /**
   * Hangs up as the caller, at a quiet moment (see CallMeter.lineQuiet): the engine counts a frame sent once it has
   * handed it to its socket, and a socket closing under it sends nothing, so agent audio in flight at the hang-up
   * would count as lost. Resolves once the socket has closed, with both sides' message counts.
   */
  async hangUp(): Promise<CallerStreamEnd> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.#onQuiet = resolve;
      timer = setTimeout(resolve, QUIET_WAIT_MS);
    });
    clearTimeout(timer);
    this.#onQuiet = undefined;
    this.#stopped = true;
    // One media message per tick (20 ms chunks on both carriers); read before the goodbye, after which none is sent.
    const sentMessages = Math.round(this.#stream.elapsedMs / TICK_MS);
    const { code } = await this.#stream.hangup().then(() => this.#stream.closed);
    const latency = await Promise.race([
      this.#ended,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ENDED_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    return {
      callId: this.callId,
      carrier: this.carrier,
      sentMessages,
      receivedMessages: this.#stream.record.mediaMessages,
      violations: this.#stream.violations.length,
      closeCode: code,
      latency,
    };
  }
}

/** The latency report of call `callId`'s `ended` event, once it is published. */
function endedReport(bus: Bus, callId: string): { report: Promise<LatencyReport | undefined>; stop(): void } {
  const events = bus.subscribe(subjects.callEvents(callId));
  const report = (async () => {
    for await (const message of events) {
      const event = callCodecs.event.decode(message.data);
      if (event.type !== 'ended') continue;
      events.unsubscribe();
      return event.latency;
    }
    return undefined;
  })().catch(() => {
    events.unsubscribe();
    return undefined;
  });
  return { report, stop: () => events.unsubscribe() };
}
