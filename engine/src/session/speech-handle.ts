/**
 * One agent utterance — the greeting, a reply to a turn, a fixed line (nudge, closing, a flow's words) — from the
 * moment it is decided until the caller has heard it, or as much of it as played. It owns the utterance's
 * cancellation, counts its frames as they are queued and as the pacing clock sends them, and settles once: when its
 * last frame has played, or when it is cut short (barge-in, hang-up) with the words the caller heard. Its transcript
 * line carries when the caller heard it (docs/architecture.md §3), not when its text was known.
 */
import { ENGINE_SAMPLE_RATE } from '../audio/format.ts';
import { playedText, type ClauseAudio } from './played-text.ts';

/** How an utterance ended, as its transcript line says it. */
export interface HeardSpeech {
  /** What the caller heard: all of it, or the played share of a line cut short. */
  text: string;
  /** When its first frame went out, ms since the call started (when it was settled, if nothing played). */
  startMs: number;
  /** When its last frame finished playing, or when playback stopped. */
  endMs: number;
  /** Less than all of it played. */
  interrupted: boolean;
}

export interface SpeechHandleOptions {
  /** The caller's turn the utterance answers (0 before the first turn). */
  turn: number;
  /** A fixed line's text; a reply's text is its clauses (`clauses`, filled live as the model writes). */
  text?: string;
  clauses?: ClauseAudio[];
  /** Milliseconds since the call started. */
  now: () => number;
  /** Called once, when the utterance settles. */
  settled: (speech: SpeechHandle, heard: HeardSpeech) => void;
}

export class SpeechHandle {
  readonly turn: number;
  /** The utterance's pieces of audio, each under its own tag, in order. */
  readonly clauses: ClauseAudio[];
  readonly #fixedText: string | undefined;
  readonly #abort = new AbortController();
  readonly #now: () => number;
  readonly #settled: SpeechHandleOptions['settled'];
  #framesQueued = 0;
  #framesSent = 0;
  #allQueued = false;
  /** It was cancelled before all of it was produced: whatever played, the caller did not hear all of it. */
  #cutWhileProducing = false;
  #firstFrameAtMs: number | undefined;
  /** When the last frame sent so far finishes playing. */
  #playedUntilMs: number | undefined;
  #heard: HeardSpeech | undefined;

  constructor(options: SpeechHandleOptions) {
    this.turn = options.turn;
    this.clauses = options.clauses ?? [];
    this.#fixedText = options.text;
    this.#now = options.now;
    this.#settled = options.settled;
  }

  /** Aborts when the utterance is cancelled: its synthesis and model requests stop. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get cancelled(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Everything it says, as far as it is known yet. */
  get text(): string {
    return this.#fixedText ?? this.clauses.map((clause) => clause.text).join(' ');
  }

  /** Its audio is still being produced: the agent holds the floor even before the first frame is queued. */
  get producing(): boolean {
    return !this.#allQueued && !this.cancelled;
  }

  /** How the caller heard it, once it has settled. */
  get heard(): HeardSpeech | undefined {
    return this.#heard;
  }

  /** Stops producing it (what is queued stays queued until the outbound audio is cleared). */
  cancel(): void {
    if (!this.#allQueued) this.#cutWhileProducing = true;
    this.#abort.abort();
  }

  frameQueued(): void {
    this.#framesQueued += 1;
  }

  /** The pacing clock sent one of its frames to the transport now. */
  frameSent(samples: number): void {
    if (this.#heard) return;
    const at = this.#now();
    this.#firstFrameAtMs ??= at;
    this.#playedUntilMs = at + (samples * 1000) / ENGINE_SAMPLE_RATE;
    this.#framesSent += 1;
    this.#settleIfPlayed();
  }

  /** One of its frames sent will be sent again (a pause put it back to replay it): it is not played yet. */
  frameUnsent(): void {
    if (!this.#heard) this.#framesSent = Math.max(0, this.#framesSent - 1);
  }

  /** All of its audio is queued: it settles when the last frame has gone out. */
  allQueued(): void {
    this.#allQueued = true;
    this.#settleIfPlayed();
  }

  /**
   * Playback stopped (barge-in, a cleared queue, hang-up): it settles with the words whose frames the caller heard
   * (`playedFrames` per clause tag) and ends now, or when its last sent frame finished if that was earlier.
   */
  cutShort(playedFrames: (tag: string) => number, heardText?: string): void {
    this.cancel();
    if (this.#heard) return;
    const text = heardText ?? playedText(this.clauses, playedFrames);
    const now = this.#now();
    // Whole only if all of it had been produced and every frame went out before the cut.
    const whole =
      !this.#cutWhileProducing && this.#allQueued && this.#framesSent >= this.#framesQueued && text === this.text;
    this.#settle({ text, endMs: Math.min(now, this.#playedUntilMs ?? now), interrupted: !whole });
  }

  #settleIfPlayed(): void {
    // A cancelled utterance may have stopped mid-clause: cutShort settles it with the words that played.
    if (this.#heard || this.cancelled || !this.#allQueued || this.#framesSent < this.#framesQueued) return;
    this.#settle({ text: this.text, endMs: this.#playedUntilMs ?? this.#now(), interrupted: false });
  }

  #settle(heard: Omit<HeardSpeech, 'startMs'>): void {
    this.#heard = { ...heard, startMs: this.#firstFrameAtMs ?? heard.endMs };
    this.#settled(this, this.#heard);
  }
}
