/**
 * The cheap first stage of voice activity detection: per 20 ms frame, the energy in dBFS against an adaptive noise
 * floor. It costs a few hundred additions per frame. A model-based detector (Silero) can sit behind it and run only
 * while this gate is open; on its own it is good enough for clean telephone and browser audio.
 */

/** Below this level a frame is silence whatever the noise floor does (quiet line noise, comfort noise). */
const ABSOLUTE_SPEECH_FLOOR_DBFS = -45;
/** Speech must stand this far above the noise floor: speech is 15–30 dB above a typical line's noise. */
const SPEECH_MARGIN_DB = 10;
/**
 * The noise floor is the quietest frame of the last 1.5 s (75 frames): long enough to always include a pause
 * between words, so speech never becomes "noise", short enough to learn a new line's noise within 1.5 s.
 */
const FLOOR_WINDOW_FRAMES = 75;
/** The floor a new call starts from, roughly a quiet phone line. */
const INITIAL_FLOOR_DBFS = -60;

export interface VadDecision {
  /** Frame energy, dBFS. */
  energyDb: number;
  speech: boolean;
}

/** Voice activity per frame of 16 kHz PCM16, answered at once (a frame is never held back for a decision). */
export interface FrameClassifier {
  classify(samples: Int16Array): VadDecision;
  /** Releases what the classifier holds (a model stream); idempotent. */
  close?(): void;
}

export class EnergyVad implements FrameClassifier {
  readonly #recentLevelsDb = new Float64Array(FLOOR_WINDOW_FRAMES).fill(INITIAL_FLOOR_DBFS);
  #nextSlot = 0;
  #floorDb = INITIAL_FLOOR_DBFS;

  /** Classifies one frame of PCM16. */
  classify(samples: Int16Array): VadDecision {
    const energyDb = frameDbfs(samples);
    const speech = energyDb > ABSOLUTE_SPEECH_FLOOR_DBFS && energyDb > this.#floorDb + SPEECH_MARGIN_DB;
    this.#recentLevelsDb[this.#nextSlot] = energyDb;
    this.#nextSlot = (this.#nextSlot + 1) % FLOOR_WINDOW_FRAMES;
    let floor = Infinity;
    for (let i = 0; i < FLOOR_WINDOW_FRAMES; i += 1) floor = Math.min(floor, this.#recentLevelsDb[i]!);
    this.#floorDb = floor;
    return { energyDb, speech };
  }

  /** The current noise floor estimate, dBFS. */
  get noiseFloorDb(): number {
    return this.#floorDb;
  }
}

/** RMS level of a frame in dB relative to full scale; -100 for digital silence. */
export function frameDbfs(samples: Int16Array): number {
  if (samples.length === 0) return -100;
  let sum = 0;
  for (let i = 0; i < samples.length; i += 1) {
    const s = samples[i]!;
    sum += s * s;
  }
  const rms = Math.sqrt(sum / samples.length);
  return rms < 1 ? -100 : 20 * Math.log10(rms / 32768);
}
