/**
 * PCM16LE byte streams as samples: cloud vendors' raw response bodies (OpenAI `pcm`, ElevenLabs `pcm_16000`) and
 * the data of the WAV a local program writes to a pipe. Both arrive in network- or pipe-sized chunks that may end
 * in the middle of a sample, so the reader carries an odd trailing byte over to the next chunk instead of
 * misaligning every sample after it.
 */
import { pcm16FromBytesLE } from '../audio/pcm16.ts';

export class Pcm16Reader {
  #carry: number | undefined;

  /** The whole samples this chunk completes (empty when it only holds half a sample). A copy, never a view. */
  push(bytes: Uint8Array): Int16Array {
    if (bytes.byteLength === 0) return new Int16Array(0);
    const carry = this.#carry;
    if (carry === undefined) {
      this.#carry = bytes.byteLength % 2 === 1 ? bytes[bytes.byteLength - 1] : undefined;
      return pcm16FromBytesLE(bytes);
    }
    const joined = new Uint8Array(bytes.byteLength + 1);
    joined[0] = carry;
    joined.set(bytes, 1);
    this.#carry = joined.byteLength % 2 === 1 ? joined[joined.byteLength - 1] : undefined;
    return pcm16FromBytesLE(joined);
  }

  /** True when the stream so far ended in the middle of a sample (a truncated body). */
  get pendingByte(): boolean {
    return this.#carry !== undefined;
  }
}
