/**
 * What the recogniser hears: speech only — voiced audio with a short pre-roll before it, until the next pause.
 * Silence is never streamed, which keeps a batch recogniser's process (and a cloud recogniser's bill) to the
 * seconds the caller actually talks.
 */
import type { SttClient } from '../workers/client/stt-client.ts';

/** Frames of audio sent ahead of detected speech (300 ms): the VAD decides a little after a word begins. */
export const PRE_ROLL_FRAMES = 15;

export class RecogniserFeed {
  readonly #stt: SttClient;
  readonly #preRoll: Int16Array[] = [];
  /** Audio is streaming to the recogniser (from the first voiced frame to the next pause). */
  #open = false;

  constructor(stt: SttClient) {
    this.#stt = stt;
  }

  /** One inbound frame and the VAD's verdict on it. */
  frame(samples: Int16Array, speech: boolean): void {
    if (speech && !this.#open) {
      this.#open = true;
      for (const frame of this.#preRoll.splice(0)) this.#stt.push(frame);
    }
    if (this.#open) {
      this.#stt.push(samples);
      return;
    }
    this.#preRoll.push(samples);
    if (this.#preRoll.length > PRE_ROLL_FRAMES) this.#preRoll.shift();
  }

  /** The caller paused: a batch recogniser transcribes the utterance now; speech after it opens a new one. */
  pause(): void {
    if (this.#open) this.#stt.endOfUtterance();
    this.#open = false;
  }
}
