/**
 * When the caller starts and stops talking, from VAD decisions per frame and STT finals. A turn starts after
 * enough voiced audio (a cough or click is not a turn); it ends after a stretch of silence — sooner when the
 * recogniser has already settled the words, later when it has not, so slow recognisers are not cut off.
 */
import { FRAME_MS } from '../audio/format.ts';

export interface TurnSettings {
  /** Voiced audio needed before speech counts as started, in ms. */
  minSpeechMs: number;
  /** Silence that ends a turn once the recogniser produced a final, in ms (the agent's endpointing). */
  endpointingMs: number;
  /** Silence that ends a turn even without a final, in ms. */
  maxSilenceMs: number;
}

/** Defaults tuned for phone calls: 200 ms rejects clicks and breaths; 600 ms of silence is a finished sentence. */
export const DEFAULT_TURN_SETTINGS: TurnSettings = { minSpeechMs: 200, endpointingMs: 600, maxSilenceMs: 1_500 };

export type TurnEvent =
  | { type: 'speech_started'; atMs: number }
  /** Endpointing silence passed with no settled words yet: batch recognisers should transcribe now. */
  | { type: 'paused'; atMs: number }
  | { type: 'turn_ended'; atMs: number; speechEndedAtMs: number };

export class TurnDetector {
  readonly #settings: TurnSettings;
  #voicedMs = 0;
  #silenceMs = 0;
  #speaking = false;
  #finalSeen = false;
  #paused = false;
  #clockMs = 0;
  #lastVoicedAtMs = 0;

  constructor(settings: Partial<TurnSettings> = {}) {
    this.#settings = { ...DEFAULT_TURN_SETTINGS, ...settings };
  }

  get speaking(): boolean {
    return this.#speaking;
  }

  /** Feeds one frame's decision; returns what it changed, if anything. */
  frame(speech: boolean): TurnEvent | undefined {
    this.#clockMs += FRAME_MS;
    if (speech) {
      this.#voicedMs += FRAME_MS;
      this.#silenceMs = 0;
      this.#lastVoicedAtMs = this.#clockMs;
      this.#paused = false;
      if (!this.#speaking && this.#voicedMs >= this.#settings.minSpeechMs) {
        this.#speaking = true;
        this.#finalSeen = false;
        return { type: 'speech_started', atMs: this.#clockMs };
      }
      return undefined;
    }
    this.#silenceMs += FRAME_MS;
    if (!this.#speaking) {
      // Voiced frames must be near each other to add up to speech.
      if (this.#silenceMs >= this.#settings.minSpeechMs) this.#voicedMs = 0;
      return undefined;
    }
    if (this.#finalSeen && this.#silenceMs >= this.#settings.endpointingMs) return this.#end();
    if (this.#silenceMs >= this.#settings.maxSilenceMs) return this.#end();
    if (!this.#paused && this.#silenceMs >= this.#settings.endpointingMs) {
      this.#paused = true;
      return { type: 'paused', atMs: this.#clockMs };
    }
    return undefined;
  }

  /**
   * The recogniser settled words of the current turn. After a pause (the words came once asked for) the turn
   * ends now; during speech it ends at the endpointing silence.
   */
  finalTranscript(): TurnEvent | undefined {
    if (!this.#speaking) return undefined;
    this.#finalSeen = true;
    return this.#paused ? this.#end() : undefined;
  }

  #end(): TurnEvent {
    this.#speaking = false;
    this.#paused = false;
    this.#voicedMs = 0;
    return { type: 'turn_ended', atMs: this.#clockMs, speechEndedAtMs: this.#lastVoicedAtMs };
  }

  /** Milliseconds of audio fed so far. */
  get clockMs(): number {
    return this.#clockMs;
  }
}
