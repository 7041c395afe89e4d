/**
 * Voice activity in two stages (docs/architecture.md §6): the energy gate on every frame, and Silero v5 behind it, asked only
 * while the gate is open. Loud noise that opens the gate (a door, traffic, a keyboard, music) is not speech until
 * the model says so.
 *
 * Silero is asked about every window of a stretch of gate-open audio until it confirms speech; from then on it only
 * re-checks a few windows a second (speech that turns into noise loses its confirmation), so a caller talking
 * continuously costs a fraction of a model run per frame. A stretch ends after SEGMENT_GAP_MS with the gate shut:
 * the model's state is reset and the next stretch must be confirmed again. Within a stretch the pauses between
 * words keep the confirmation, so only an utterance's onset waits for the model (one 32 ms window).
 *
 * The model runs off the frame path: `classify` answers at once from the latest verdict; a window's verdict lands
 * before the next frame (~0.2 ms per window). At most one window waits while another is evaluated; a newer window
 * replaces a waiting one (overflow rule: drop the oldest — under CPU starvation the freshest audio matters).
 */
import { SILERO_WINDOW_SAMPLES, type SileroModel, type SileroStream } from '../providers/silero/silero-model.ts';
import { EnergyVad, type FrameClassifier, type VadDecision } from './energy-vad.ts';

/** Probability at or above which a window is speech (Silero's own recommendation). */
export const SPEECH_THRESHOLD = 0.5;
/** Below this a confirmed stretch loses its confirmation; between the two thresholds nothing changes (hysteresis). */
export const NOT_SPEECH_THRESHOLD = 0.35;
/** Gate-shut time that ends a stretch, ms: longer than the pause between words, shorter than between sentences. */
export const SEGMENT_GAP_MS = 300;
/** How often confirmed speech is re-checked, ms of gate-open audio, and with how many windows. */
export const RECHECK_EVERY_MS = 1_000;
export const RECHECK_WINDOWS = 3;
const SAMPLES_PER_MS = 16;

export interface GatedVadStatistics {
  /** Frames seen, and frames the gate let through. */
  frames: number;
  gateOpenFrames: number;
  /** Windows the model evaluated, and windows dropped because the model was behind. */
  windowsEvaluated: number;
  windowsDropped: number;
}

export class GatedSileroVad implements FrameClassifier {
  readonly #gate = new EnergyVad();
  readonly #model: SileroStream;
  readonly #onError: (error: unknown) => void;
  readonly #window = new Float32Array(SILERO_WINDOW_SAMPLES);
  #filled = 0;
  #confirmed = false;
  /** Gate-open audio since the last check of confirmed speech, ms. */
  #sinceCheckMs = 0;
  /** Windows still wanted from the model in this check. */
  #checkWindowsLeft = 0;
  #gateShutMs = SEGMENT_GAP_MS;
  #busy = false;
  #evaluating: Promise<void> = Promise.resolve();
  #waiting: Float32Array | undefined;
  /** Bumped when a stretch ends, so a verdict about the previous stretch is ignored. */
  #generation = 0;
  /** The model failed: the gate alone decides from then on (a broken model must not deafen the call). */
  #failed = false;
  #closed = false;
  readonly statistics: GatedVadStatistics = { frames: 0, gateOpenFrames: 0, windowsEvaluated: 0, windowsDropped: 0 };

  constructor(model: SileroModel, onError: (error: unknown) => void = () => {}) {
    this.#model = model.stream();
    this.#onError = onError;
  }

  classify(samples: Int16Array): VadDecision {
    const gate = this.#gate.classify(samples);
    const frameMs = samples.length / SAMPLES_PER_MS;
    this.statistics.frames += 1;
    if (this.#failed) return gate;
    if (!gate.speech) {
      this.#gateShutMs += frameMs;
      if (this.#gateShutMs >= SEGMENT_GAP_MS && this.#gateShutMs - frameMs < SEGMENT_GAP_MS) this.#endStretch();
      return gate;
    }
    this.statistics.gateOpenFrames += 1;
    this.#gateShutMs = 0;
    if (this.#confirmed) {
      this.#sinceCheckMs += frameMs;
      if (this.#checkWindowsLeft === 0 && this.#sinceCheckMs >= RECHECK_EVERY_MS)
        this.#checkWindowsLeft = RECHECK_WINDOWS;
    }
    if (!this.#confirmed || this.#checkWindowsLeft > 0) this.#feed(samples);
    return { energyDb: gate.energyDb, speech: this.#confirmed };
  }

  /** Resolves when every window handed to the model has its verdict (tests and the bench wait on it). */
  settled(): Promise<void> {
    return this.#evaluating;
  }

  close(): void {
    this.#closed = true;
    this.#waiting = undefined;
  }

  #endStretch(): void {
    this.#generation += 1;
    this.#confirmed = false;
    this.#checkWindowsLeft = 0;
    this.#filled = 0;
    this.#waiting = undefined;
    if (!this.#busy) this.#model.reset();
  }

  #feed(samples: Int16Array): void {
    let offset = 0;
    while (offset < samples.length) {
      const take = Math.min(samples.length - offset, SILERO_WINDOW_SAMPLES - this.#filled);
      for (let i = 0; i < take; i += 1) this.#window[this.#filled + i] = samples[offset + i]! / 32768;
      this.#filled += take;
      offset += take;
      if (this.#filled === SILERO_WINDOW_SAMPLES) {
        this.#filled = 0;
        this.#submit(this.#window.slice());
      }
    }
  }

  #submit(window: Float32Array): void {
    if (this.#busy) {
      if (this.#waiting) this.statistics.windowsDropped += 1;
      this.#waiting = window;
      return;
    }
    this.#busy = true;
    this.#evaluating = this.#evaluate(window, this.#generation);
  }

  async #evaluate(window: Float32Array, generation: number): Promise<void> {
    let next: Float32Array | undefined = window;
    while (next && !this.#closed) {
      try {
        const probability = await this.#model.probability(next);
        this.statistics.windowsEvaluated += 1;
        if (generation === this.#generation) this.#verdict(probability);
      } catch (error) {
        // After close the model may be released under a window in flight: that is the end, not a failure.
        if (this.#closed) break;
        this.#failed = true;
        this.#onError(error);
        break;
      }
      next = this.#waiting;
      this.#waiting = undefined;
      if (generation !== this.#generation) {
        // The stretch ended while this window was evaluated: the next one starts from a fresh state.
        this.#model.reset();
        generation = this.#generation;
      }
    }
    this.#busy = false;
  }

  #verdict(probability: number): void {
    if (!this.#confirmed) {
      if (probability >= SPEECH_THRESHOLD) {
        this.#confirmed = true;
        this.#sinceCheckMs = 0;
      }
      return;
    }
    if (this.#checkWindowsLeft === 0) return;
    if (probability < NOT_SPEECH_THRESHOLD) {
      this.#confirmed = false;
      this.#checkWindowsLeft = 0;
      return;
    }
    this.#checkWindowsLeft -= 1;
    if (this.#checkWindowsLeft === 0) this.#sinceCheckMs = 0;
  }
}
