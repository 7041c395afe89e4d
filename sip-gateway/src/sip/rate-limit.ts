/**
 * Per-source flood control for SIP: a token bucket per address. A trunk sends a few messages per call; a source
 * above the rate is dropped before its bytes are even parsed, so a flood costs us a Map lookup per datagram.
 */

/** Messages a second one source may send, sustained: 200 call set-ups a second from one trunk is far past real. */
export const SIP_SOURCE_RATE_PER_S = 400;
/** Burst one source may send at once: retransmissions of many transactions after a network blip. */
export const SIP_SOURCE_BURST = 800;
/** Sources tracked at most; past it the idle ones are forgotten first (a spoofed-source flood cannot grow it). */
const MAX_SOURCES = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class SourceRateLimit {
  readonly #buckets = new Map<string, Bucket>();
  readonly #rate: number;
  readonly #burst: number;
  #dropped = 0;

  constructor(ratePerS = SIP_SOURCE_RATE_PER_S, burst = SIP_SOURCE_BURST) {
    this.#rate = ratePerS;
    this.#burst = burst;
  }

  /** Messages refused so far. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Whether one more message from `source` may be handled now. */
  take(source: string, now = performance.now()): boolean {
    let bucket = this.#buckets.get(source);
    if (!bucket) {
      if (this.#buckets.size >= MAX_SOURCES) this.#evict(now);
      bucket = { tokens: this.#burst, at: now };
      this.#buckets.set(source, bucket);
    }
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) * this.#rate) / 1000);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.#dropped += 1;
      return false;
    }
    bucket.tokens -= 1;
    return true;
  }

  #evict(now: number): void {
    const full = (this.#burst / this.#rate) * 1000;
    for (const [source, bucket] of this.#buckets) if (now - bucket.at > full) this.#buckets.delete(source);
    if (this.#buckets.size >= MAX_SOURCES) this.#buckets.delete(this.#buckets.keys().next().value!);
  }
}
