/**
 * Speech to text with CMU pocketsphinx 0.8 (Debian packages `pocketsphinx` and `pocketsphinx-en-us`), offline, US
 * English. A batch recogniser: one `pocketsphinx_continuous` run per utterance, one final per utterance, no partials.
 *
 * Cost per utterance, measured on the 2-core CI machine (AMD EPYC, Debian 12): each run is a new process that
 * loads the model (~0.35 s wall, ~0.3 s CPU, ~105 MB resident while it lives), then decodes at ~0.2x real time.
 * Run as a plain batch once the utterance has ended, that is 0.35 s + 0.2 x duration of waiting: 0.7-1.1 s for a
 * 1.5-2.2 s sentence. So a run starts on an utterance's first frame and is fed the audio as it arrives (see
 * recognizer-run.ts): the load and most of the decoding happen while the caller is still speaking, and from
 * endOfUtterance() to the final it is 0.1-0.18 s for the same sentences fed in real time. The price is one
 * pocketsphinx process (~105 MB) per stream for as long as the caller is speaking.
 *
 * Order and bounds: one run at a time per stream, in utterance order. An utterance that ends while an earlier one
 * is still being recognised waits, its audio held in memory; at most MAX_WAITING_UTTERANCES wait, and when another
 * ends the oldest waiting one is dropped (counted in `droppedUtterances`): by then its transcript would come too
 * late for the conversation, and holding audio without bound is not an option. An utterance is cut at
 * MAX_UTTERANCE_MS as if endOfUtterance() had been called.
 */
import { ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import { requireReadable, resolveExecutable } from '../local/local-process.ts';
import { primaryLanguage } from '../local/speech-request.ts';
import { ProviderError } from '../provider-error.ts';
import type { SttEvent, SttOptions, SttProvider, SttStream } from '../stt-provider.ts';
import { Channel } from '../../streams/channel.ts';
import { POCKETSPHINX_NAME, RecognizerRun, type RecognizerConfig } from './recognizer-run.ts';

/** Where Debian's pocketsphinx-en-us puts the US English model. */
export const POCKETSPHINX_DEBIAN_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
/** Longest utterance, in ms: a turn is seconds long; 30 s bounds the audio held (~1 MB) and one run's work (~6 s). */
export const MAX_UTTERANCE_MS = 30_000;
/** Utterances waiting behind the one being recognised: 4 is a backlog of whole turns, already too late to matter. */
export const MAX_WAITING_UTTERANCES = 4;
/** Transcripts held for a reader that is not reading: far more than a healthy reader ever lags. Full: oldest dropped. */
const MAX_UNREAD_EVENTS = 64;
/** Deadline of a run once its input is complete: the load (0.35 s) on a starved machine, plus the tail of decoding. */
const RECOGNITION_DEADLINE_BASE_MS = 10_000;
/** ...plus this many ms per ms of audio: decoding runs at ~0.2x real time, so 2x is ten times the usual need. */
const RECOGNITION_DEADLINE_PER_AUDIO_MS = 2;
const INSTALL_HINT = 'install the Debian packages pocketsphinx and pocketsphinx-en-us, or set the pocketsphinx paths';

export interface PocketsphinxSttOptions {
  /** The program: a path, or a name looked up on PATH. Default `pocketsphinx_continuous`. */
  binary?: string;
  /** Acoustic model directory. Default `<POCKETSPHINX_DEBIAN_MODEL_DIR>/en-us`. */
  hmm?: string;
  /** Language model. Default `<POCKETSPHINX_DEBIAN_MODEL_DIR>/en-us.lm.bin`. */
  lm?: string;
  /** Pronunciation dictionary. Default `<POCKETSPHINX_DEBIAN_MODEL_DIR>/cmudict-en-us.dict`. */
  dict?: string;
  /** BCP-47 language of the model; streams for another primary language are refused. Default `en-US`. */
  language?: string;
}

export class PocketsphinxSttProvider implements SttProvider {
  readonly name = POCKETSPHINX_NAME;
  readonly #config: RecognizerConfig;
  readonly #language: string;

  /** Use `createPocketsphinxStt`, which checks that the program and model are installed. */
  constructor(config: RecognizerConfig, language: string) {
    this.#config = config;
    this.#language = language;
  }

  /**
   * A stream for one call. `mode` and `keywords` are ignored (one model, no keyword boosting in this version).
   * @throws ProviderError `invalid_request` when `language` is not the model's language (checked here, so a
   *   worker refuses the open request rather than opening a stream that would transcribe nonsense)
   */
  open(options: SttOptions, signal: AbortSignal): PocketsphinxStream {
    if (primaryLanguage(options.language) !== primaryLanguage(this.#language)) {
      throw new ProviderError(
        'invalid_request',
        POCKETSPHINX_NAME,
        `pocketsphinx's model is ${this.#language}; it cannot transcribe ${options.language}`,
      );
    }
    return new PocketsphinxStream(this.#config, signal);
  }
}

interface Utterance {
  /** Offsets from the stream start, in samples; `end` is undefined while the caller is still speaking. */
  start: number;
  end: number | undefined;
  /** Audio not yet handed to a run (while an earlier utterance is being recognised). */
  held: Int16Array[];
  run: RecognizerRun | undefined;
}

export class PocketsphinxStream implements SttStream {
  readonly #config: RecognizerConfig;
  readonly #events: Channel<SttEvent>;
  /** In order; the first is being recognised (it has the run), the last may still be open. */
  #utterances: Utterance[] = [];
  /** Samples pushed since the stream opened: the clock of every offset. */
  #clock = 0;
  #ending = false;
  #closed = false;
  #dropped = 0;

  readonly #signal: AbortSignal;
  readonly #onAbort = () => this.#close();

  constructor(config: RecognizerConfig, signal: AbortSignal) {
    this.#config = config;
    this.#signal = signal;
    this.#events = new Channel<SttEvent>(MAX_UNREAD_EVENTS, 'drop-oldest', { onReturn: () => this.#close() });
    if (signal.aborted) this.#close();
    else signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Utterances dropped unrecognised because MAX_WAITING_UTTERANCES were already waiting. */
  get droppedUtterances(): number {
    return this.#dropped;
  }

  push(samples: Int16Array): void {
    if (this.#ending || this.#closed || samples.length === 0) return;
    let utterance = this.#openUtterance();
    if (utterance === undefined) {
      utterance = { start: this.#clock, end: undefined, held: [], run: undefined };
      this.#utterances.push(utterance);
      if (this.#utterances.length === 1) this.#recogniseHead();
    }
    if (utterance.run) utterance.run.write(samples);
    else utterance.held.push(samples.slice());
    this.#clock += samples.length;
    if (this.#clock - utterance.start >= (MAX_UTTERANCE_MS * this.#config.sampleRate) / 1000) this.#closeUtterance();
  }

  endOfUtterance(): void {
    if (!this.#closed) this.#closeUtterance();
  }

  end(): void {
    if (this.#ending || this.#closed) return;
    this.#ending = true;
    this.#closeUtterance();
    if (this.#utterances.length === 0) this.#finish();
  }

  [Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    return this.#events[Symbol.asyncIterator]();
  }

  #openUtterance(): Utterance | undefined {
    const last = this.#utterances.at(-1);
    return last !== undefined && last.end === undefined ? last : undefined;
  }

  #closeUtterance(): void {
    const utterance = this.#openUtterance();
    if (utterance === undefined) return;
    utterance.end = this.#clock;
    utterance.run?.finishInput(this.#deadlineMs(utterance));
    const waiting = this.#utterances.slice(1);
    if (waiting.length > MAX_WAITING_UTTERANCES) {
      this.#utterances.splice(1, 1);
      this.#dropped += 1;
    }
  }

  /** Starts the run of the first utterance, handing it the audio held so far. */
  #recogniseHead(): void {
    const utterance = this.#utterances[0];
    if (utterance === undefined || utterance.run !== undefined) return;
    const run = new RecognizerRun(this.#config);
    utterance.run = run;
    for (const samples of utterance.held) run.write(samples);
    utterance.held = [];
    if (utterance.end !== undefined) run.finishInput(this.#deadlineMs(utterance));
    run.result.then(
      (text) => this.#recognised(utterance, text),
      (error: unknown) => this.#fail(error),
    );
  }

  #recognised(utterance: Utterance, text: string): void {
    if (this.#closed || this.#utterances[0] !== utterance) return;
    this.#utterances.shift();
    if (text !== '') {
      this.#events.push({
        type: 'final',
        text,
        startMs: this.#ms(utterance.start),
        endMs: this.#ms(utterance.end ?? this.#clock),
      });
    }
    if (this.#utterances.length > 0) this.#recogniseHead();
    else if (this.#ending) this.#finish();
  }

  #deadlineMs(utterance: Utterance): number {
    const audioMs = this.#ms((utterance.end ?? this.#clock) - utterance.start);
    return RECOGNITION_DEADLINE_BASE_MS + RECOGNITION_DEADLINE_PER_AUDIO_MS * audioMs;
  }

  #ms(samples: number): number {
    return Math.round((samples * 1000) / this.#config.sampleRate);
  }

  #finish(): void {
    this.#stop();
    this.#events.end();
  }

  #fail(error: unknown): void {
    if (this.#closed) return;
    this.#stop();
    this.#events.fail(error);
  }

  /** Abort, or the reader stopped: kill the run, forget the audio, end the iterator now. */
  #close(): void {
    if (this.#closed) return;
    this.#stop();
    this.#events.discard();
  }

  #stop(): void {
    this.#closed = true;
    this.#signal.removeEventListener('abort', this.#onAbort);
    for (const utterance of this.#utterances) utterance.run?.kill();
    this.#utterances = [];
  }
}

/**
 * A pocketsphinx provider, after checking that the program and the model files are installed.
 * @throws ProviderError `provider_unavailable` when the program or a model file is missing
 */
export function createPocketsphinxStt(options: PocketsphinxSttOptions = {}): PocketsphinxSttProvider {
  const binary = resolveExecutable(POCKETSPHINX_NAME, options.binary ?? 'pocketsphinx_continuous', INSTALL_HINT);
  const mkfifo = resolveExecutable(POCKETSPHINX_NAME, 'mkfifo', 'install coreutils');
  const hmm = options.hmm ?? `${POCKETSPHINX_DEBIAN_MODEL_DIR}/en-us`;
  const lm = options.lm ?? `${POCKETSPHINX_DEBIAN_MODEL_DIR}/en-us.lm.bin`;
  const dict = options.dict ?? `${POCKETSPHINX_DEBIAN_MODEL_DIR}/cmudict-en-us.dict`;
  requireReadable(POCKETSPHINX_NAME, `${hmm}/mdef`, 'acoustic model', INSTALL_HINT);
  requireReadable(POCKETSPHINX_NAME, lm, 'language model', INSTALL_HINT);
  requireReadable(POCKETSPHINX_NAME, dict, 'dictionary', INSTALL_HINT);
  return new PocketsphinxSttProvider(
    { binary, mkfifo, hmm, lm, dict, sampleRate: ENGINE_SAMPLE_RATE },
    options.language ?? 'en-US',
  );
}
