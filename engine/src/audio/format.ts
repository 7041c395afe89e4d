/**
 * The engine's audio conventions. Inside the engine every call's audio is 16-bit signed PCM, mono, at 16 kHz, cut
 * into 20 ms frames; transports convert at the edge (G.711 at 8 kHz, Opus at 48 kHz, L16 at 8/16 kHz) and
 * providers at theirs (TTS voices at 16, 22.05 or 24 kHz).
 */

/** Sample rate of every call's audio inside the engine, in Hz: what STT engines want and plenty for speech. */
export const ENGINE_SAMPLE_RATE = 16_000;
/** Frame length, in ms: the unit of pacing, VAD decisions and carrier media messages. */
export const FRAME_MS = 20;
/** Samples in one engine frame (16 kHz × 20 ms). */
export const ENGINE_FRAME_SAMPLES = (ENGINE_SAMPLE_RATE * FRAME_MS) / 1000;

/** Samples per frame of FRAME_MS at `sampleRate` Hz. */
export function samplesPerFrame(sampleRate: number): number {
  return Math.round((sampleRate * FRAME_MS) / 1000);
}

/** A piece of PCM16 mono audio and the rate it is sampled at. */
export interface AudioChunk {
  readonly samples: Int16Array;
  /** Hz. */
  readonly sampleRate: number;
}
