/**
 * One simulated caller: a frame every 20 ms in real time on a timer of its own (as a carrier's media stream
 * delivers each call's audio on its own schedule), speaking an utterance, then line noise until the agent's reply
 * has played, a short pause, the next utterance. Before each utterance its schedule shifts by a random fraction of
 * a frame, as network jitter does, so turns end at every phase of the engine's shared 20 ms pacing clock and the
 * wait for its next tick is sampled fairly rather than fixed by the two clocks' chance alignment.
 */
import { FRAME_MS } from '@parley/engine/audio';
import type { CallerAudio } from './caller-audio.ts';
import type { StampBook } from './turn-stamps.ts';

export interface ConversationScript {
  /** Voiced frames per utterance. */
  speechFrames: number;
  /** Frames of line noise after the agent's reply before the next utterance. */
  gapFrames: number;
  /** Frames of line noise before the first utterance; gapFrames when absent. */
  leadInFrames?: number;
  /** Utterances before the caller falls quiet; Infinity talks until stopped. */
  turns: number;
}

/** A reply not started this long after the caller stopped talking is a failed turn, ms: 10× the slowest expected. */
export const REPLY_TIMEOUT_MS = 10_000;
/** No agent frame for this long after its reply started means the reply is over, ms: 6 frames. */
export const REPLY_QUIET_MS = 120;

export interface CallerCounters {
  framesSent: number;
  voicedFramesSent: number;
  framesHeard: number;
  utterances: number;
  /** Replies that started (first agent frame heard). */
  replies: number;
  /** Utterances with no reply within REPLY_TIMEOUT_MS. */
  timeouts: number;
}

type Phase = 'gap' | 'speaking' | 'waiting' | 'quiet';

export class ScriptedCaller {
  readonly counters: CallerCounters = {
    framesSent: 0,
    voicedFramesSent: 0,
    framesHeard: 0,
    utterances: 0,
    replies: 0,
    timeouts: 0,
  };
  /** Turn keys of this call's utterances, in order, as the engine's transcripts named them. */
  readonly keys: string[] = [];
  /** Resolves once every scripted utterance has been answered (or timed out) and the reply has played. */
  readonly finished: Promise<void>;
  readonly #send: (frame: Int16Array) => void;
  readonly #script: ConversationScript;
  readonly #audio: CallerAudio;
  readonly #book: StampBook | undefined;
  #resolveFinished!: () => void;
  #phase: Phase = 'gap';
  #left: number;
  #frameIndex = 0;
  #due = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #utteranceEndedAt = 0;
  #firstFrameAt: number | undefined;
  #lastHeardAt = 0;
  #key: string | undefined;

  /**
   * @param send hands one frame to the engine (or, for the harness baseline, to nothing)
   * @param book where the caller's stamps go; undefined when nobody reads them
   */
  constructor(send: (frame: Int16Array) => void, script: ConversationScript, audio: CallerAudio, book?: StampBook) {
    this.#send = send;
    this.#script = script;
    this.#audio = audio;
    this.#book = book;
    this.#left = script.leadInFrames ?? script.gapFrames;
    this.finished = new Promise((resolve) => {
      this.#resolveFinished = resolve;
    });
  }

  start(): void {
    this.#due = performance.now() + Math.random() * FRAME_MS;
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#resolveFinished();
  }

  /** The agent sent a frame. */
  agentFrame(): void {
    const now = performance.now();
    this.counters.framesHeard += 1;
    this.#lastHeardAt = now;
    if (this.#phase !== 'waiting' || this.#firstFrameAt !== undefined) return;
    this.#firstFrameAt = now;
    this.counters.replies += 1;
    if (this.#key && this.#book) this.#book.of(this.#key).firstFrameAt ??= now;
  }

  /** The engine published the caller's words for the current utterance, under `key`. */
  userTurn(key: string): void {
    this.keys.push(key);
    this.#key = key;
    const stamps = this.#book?.of(key);
    if (!stamps) return;
    stamps.lastVoicedAt = this.#utteranceEndedAt;
    if (this.#firstFrameAt !== undefined) stamps.firstFrameAt ??= this.#firstFrameAt;
  }

  #schedule(): void {
    this.#timer = setTimeout(this.#tick, Math.max(0, Math.ceil(this.#due - performance.now())));
  }

  readonly #tick = (): void => {
    this.#timer = undefined;
    if (this.#stopped) return;
    this.#step(performance.now());
    this.#due += FRAME_MS;
    this.#schedule();
  };

  #step(now: number): void {
    const index = this.#frameIndex++;
    this.counters.framesSent += 1;
    if (this.#phase === 'speaking') {
      this.counters.voicedFramesSent += 1;
      this.#send(this.#audio.speech(index));
      if (--this.#left > 0) return;
      this.#phase = 'waiting';
      this.#utteranceEndedAt = now;
      this.#firstFrameAt = undefined;
      this.#key = undefined;
      this.counters.utterances += 1;
      return;
    }
    this.#send(this.#audio.noise(index));
    if (this.#phase === 'waiting') {
      const started = this.#firstFrameAt !== undefined;
      if (started && now - this.#lastHeardAt >= REPLY_QUIET_MS) this.#toGap();
      else if (!started && now - this.#utteranceEndedAt >= REPLY_TIMEOUT_MS) {
        this.counters.timeouts += 1;
        this.#toGap();
      }
    } else if (this.#phase === 'gap' && --this.#left <= 0) {
      if (this.counters.utterances >= this.#script.turns) {
        this.#phase = 'quiet';
        this.#resolveFinished();
        return;
      }
      this.#phase = 'speaking';
      this.#left = this.#script.speechFrames;
      // Network jitter shifts the caller's schedule once per utterance: turns end at every phase of the pacing clock.
      this.#due += Math.random() * FRAME_MS;
    }
  }

  #toGap(): void {
    this.#phase = 'gap';
    this.#left = this.#script.gapFrames;
  }
}
