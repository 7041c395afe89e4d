/**
 * An SttProvider that opens a stream on a primary recogniser and, when that stream fails before its first
 * transcript, moves to a secondary: it opens a secondary stream and replays into it everything the caller sent so
 * far — audio, utterance ends, and the end of the stream — so the caller's words are not lost to the failure.
 * The replay is bounded: a stream that has gone FALLBACK_STT_REPLAY_MS without a transcript stops recording and
 * can no longer fall back. Once a transcript was delivered, a failure propagates (the session fails over).
 */
import { ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import type { SttEvent, SttOptions, SttProvider, SttStream } from '../stt-provider.ts';
import type { FallbackOptions } from './fallback-options.ts';

/**
 * Audio kept for a replay, in ms of 16 kHz PCM16 (30 s = 960 kB). Primaries fail on connect (bad key, outage)
 * within a second or two; one that stays silent for 30 s of speech is broken in a way a replay will not fix.
 */
export const FALLBACK_STT_REPLAY_MS = 30_000;

export class FallbackStt implements SttProvider {
  readonly name: string;
  readonly #primary: SttProvider;
  readonly #secondary: SttProvider;
  readonly #options: FallbackOptions;

  constructor(primary: SttProvider, secondary: SttProvider, options: FallbackOptions = {}) {
    this.name = primary.name;
    this.#primary = primary;
    this.#secondary = secondary;
    this.#options = options;
  }

  open(options: SttOptions, signal: AbortSignal): SttStream {
    const openSecondary = (): SttStream => this.#secondary.open(options, signal);
    return new FallbackSttStream(this.#primary.open(options, signal), openSecondary, signal, this.#options);
  }
}

type Recorded = Int16Array | 'end-of-utterance';

class FallbackSttStream implements SttStream {
  readonly #openSecondary: () => SttStream;
  readonly #signal: AbortSignal;
  readonly #options: FallbackOptions;
  #current: SttStream;
  /** What the caller sent, for a replay; undefined once no fallback can happen any more. */
  #recorded: Recorded[] | undefined = [];
  #recordedSamples = 0;
  #ended = false;

  constructor(primary: SttStream, openSecondary: () => SttStream, signal: AbortSignal, options: FallbackOptions) {
    this.#current = primary;
    this.#openSecondary = openSecondary;
    this.#signal = signal;
    this.#options = options;
  }

  push(samples: Int16Array): void {
    if (this.#recorded !== undefined) {
      // A copy: the caller may reuse its frame buffer.
      this.#recorded.push(samples.slice());
      this.#recordedSamples += samples.length;
      if (this.#recordedSamples > (FALLBACK_STT_REPLAY_MS * ENGINE_SAMPLE_RATE) / 1000) this.#recorded = undefined;
    }
    this.#current.push(samples);
  }

  endOfUtterance(): void {
    this.#recorded?.push('end-of-utterance');
    this.#current.endOfUtterance();
  }

  end(): void {
    this.#ended = true;
    this.#current.end();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SttEvent, void, undefined> {
    try {
      for await (const event of this.#current) {
        this.#recorded = undefined;
        yield event;
      }
      return;
    } catch (err) {
      if (this.#recorded === undefined || this.#signal.aborted) throw err;
      this.#options.onFallback?.(err);
    }
    const replay = this.#recorded;
    this.#recorded = undefined;
    this.#current = this.#openSecondary();
    for (const item of replay) {
      if (item === 'end-of-utterance') this.#current.endOfUtterance();
      else this.#current.push(item);
    }
    if (this.#ended) this.#current.end();
    yield* this.#current;
  }
}
