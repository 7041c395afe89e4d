/**
 * A simulated carrier's playout of the agent's audio: what the engine sends is queued, and played at real time,
 * 20 ms per tick of the stream's clock, as a phone line would. A mark is reached when everything queued before it
 * has played; a clear drops what is queued and hands back the marks still pending.
 */

interface PendingMark {
  name: string;
  /** Samples queued before the mark: it is reached when playout has got that far. */
  position: number;
}

export class Playout {
  readonly #chunks: Int16Array[] = [];
  /** Samples of #chunks[0] already played. */
  #offset = 0;
  #marks: PendingMark[] = [];
  /** Samples queued since the stream began; samples played (or dropped by a clear). */
  #queuedSamples = 0;
  #playedSamples = 0;

  /** Samples waiting to play. */
  get backlog(): number {
    return this.#queuedSamples - this.#playedSamples;
  }

  enqueue(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.#chunks.push(samples);
    this.#queuedSamples += samples.length;
  }

  mark(name: string): void {
    this.#marks.push({ name, position: this.#queuedSamples });
  }

  /** Drops everything queued; returns the marks that were pending, in order. */
  clear(): string[] {
    this.#chunks.length = 0;
    this.#offset = 0;
    this.#playedSamples = this.#queuedSamples;
    return this.#marks.splice(0).map((m) => m.name);
  }

  /**
   * One tick: plays up to `samples` samples (fewer when less is queued).
   * @returns what played, and the marks it reached, in order
   */
  tick(samples: number): { played: Int16Array; marks: string[] } {
    const played = new Int16Array(Math.min(samples, this.backlog));
    let at = 0;
    while (at < played.length) {
      const chunk = this.#chunks[0]!;
      const take = Math.min(chunk.length - this.#offset, played.length - at);
      played.set(chunk.subarray(this.#offset, this.#offset + take), at);
      at += take;
      this.#offset += take;
      if (this.#offset === chunk.length) {
        this.#chunks.shift();
        this.#offset = 0;
      }
    }
    this.#playedSamples += played.length;
    const marks: string[] = [];
    while (this.#marks.length > 0 && this.#marks[0]!.position <= this.#playedSamples)
      marks.push(this.#marks.shift()!.name);
    return { played, marks };
  }
}
