/**
 * How late the gateway's RTP reaches the far end: each stream (SSRC) is held against its own 20 ms schedule. A
 * packet's offset is its arrival less the stream's first arrival less 20 ms for every sequence number since; its
 * lateness is that offset less the stream's smallest offset, so the stream's earliest-arriving packet is on time
 * and a constant delay (the stream's place in the tick's sends, the path) counts for nothing. What is left is what
 * a far end's jitter buffer has to absorb.
 */
import { percentile } from '../percentiles.ts';

/** RTP's packet spacing for 20 ms G.711, ms. */
const PACKET_MS = 20;

export interface LatenessSummary {
  packets: number;
  streams: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Packets later than `overMs` (the report's target). */
  over: number;
  overMs: number;
}

interface Stream {
  first: number;
  firstSequence: number;
  minOffset: number;
  offsets: number[];
}

export class OutboundLateness {
  readonly #streams = new Map<number, Stream>();
  #packets = 0;

  /** One packet of stream `ssrc` with RTP sequence number `sequence`, arrived at `atMs` (a monotonic clock). */
  add(ssrc: number, sequence: number, atMs: number): void {
    this.#packets += 1;
    let stream = this.#streams.get(ssrc);
    if (!stream) {
      stream = { first: atMs, firstSequence: sequence, minOffset: 0, offsets: [] };
      this.#streams.set(ssrc, stream);
    }
    const index = (sequence - stream.firstSequence + 65_536) % 65_536;
    const offset = atMs - stream.first - index * PACKET_MS;
    if (offset < stream.minOffset) stream.minOffset = offset;
    stream.offsets.push(offset);
  }

  summary(overMs: number): LatenessSummary {
    const late = new Float64Array(this.#packets);
    let n = 0;
    let over = 0;
    for (const stream of this.#streams.values()) {
      for (const offset of stream.offsets) {
        const lateness = offset - stream.minOffset;
        if (lateness > overMs) over += 1;
        late[n++] = lateness;
      }
    }
    late.sort();
    return {
      packets: this.#packets,
      streams: this.#streams.size,
      p50Ms: percentile(late, 50),
      p99Ms: percentile(late, 99),
      maxMs: late.at(-1) ?? Number.NaN,
      over,
      overMs,
    };
  }
}
