import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JITTER_RESYNC_FRAMES, JitterBuffer, type JitterFrame, type JitterPacket } from './jitter-buffer.ts';

const FRAME = 160;

/** A frame whose samples all hold its sequence number, so any frame can be traced back to its packet. */
function packet(sequence: number, modulus = 65536): JitterPacket {
  const wire = modulus === 0 ? sequence : ((sequence % modulus) + modulus) % modulus;
  return { sequence: wire, timestamp: sequence * FRAME, samples: new Int16Array(FRAME).fill(sequence % 30000) };
}

/** Pushes each packet and pulls whatever is due after it, as a transport does; then drains. */
function run(buffer: JitterBuffer, packets: readonly JitterPacket[]): JitterFrame[] {
  const out: JitterFrame[] = [];
  for (const p of packets) {
    buffer.push(p);
    for (let frame = buffer.pull(); frame; frame = buffer.pull()) out.push(frame);
  }
  out.push(...buffer.drain());
  return out;
}

/** Shuffles `items` so that none moves more than `reach` places from where it was. */
function locallyShuffled<T>(items: readonly T[], keys: readonly number[], reach: number): T[] {
  return items
    .map((item, i) => ({ item, key: i + (keys[i % keys.length]! % (reach + 1)) }))
    .sort((a, b) => a.key - b.key)
    .map(({ item }) => item);
}

describe('JitterBuffer', () => {
  it('passes in-order audio straight through once the pre-roll (target depth) has arrived', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 60 });
    buffer.push(packet(100));
    buffer.push(packet(101));
    expect(buffer.pull()).toBeUndefined();
    buffer.push(packet(102));
    expect(buffer.pull()?.sequence).toBe(100);
    expect(buffer.pull()?.sequence).toBe(101);
    expect(buffer.pull()?.sequence).toBe(102);
    expect(buffer.pull()).toBeUndefined();
    buffer.push(packet(103));
    expect(buffer.pull()).toMatchObject({ sequence: 103, kind: 'audio', timestamp: 103 * FRAME });
  });

  it('puts shuffled audio back in order, without concealing anything, when the reordering fits the depth', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 0, max: 70_000 }),
        (keys, first) => {
          const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 100 });
          const sequences = Array.from({ length: 300 }, (_, i) => first + i);
          // Displacements of up to 4 frames: every frame arrives within 100 ms (5 frames) of its place.
          const out = run(
            buffer,
            locallyShuffled(
              sequences.map((s) => packet(s)),
              keys,
              4,
            ),
          );
          // Unwrapped numbers count on from whichever packet came first; on the wire they are the senders'.
          expect(out.map((f) => f.sequence - out[0]!.sequence)).toEqual(sequences.map((s) => s - first));
          expect(out.map((f) => ((f.sequence % 65536) + 65536) % 65536)).toEqual(sequences.map((s) => s % 65536));
          expect(out.every((f, i) => f.kind === 'audio' && f.samples[0] === sequences[i]! % 30000)).toBe(true);
          expect(buffer.stats.concealed).toBe(0);
        },
      ),
    );
  });

  it('conceals lost frames (the last frame once, then silence) and keeps every surviving frame, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }),
        fc.array(fc.nat(), { minLength: 1 }),
        (kept, keys) => {
          // A frame survives every 40, so no gap is long enough to count as a new stream.
          for (let i = 0; i < kept.length; i += 40) kept[i] = true;
          kept[kept.length - 1] = true;
          const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 60, maxDepthMs: 400 });
          // Reordered in time (arrival within 2 frames of its place), then the lost ones taken out.
          const arrivals = locallyShuffled(
            kept.map((_, i) => i),
            keys,
            2,
          ).filter((i) => kept[i]);
          const out = run(
            buffer,
            arrivals.map((i) => packet(1000 + i)),
          );
          expect(out.map((f) => f.sequence)).toEqual(kept.map((_, i) => 1000 + i));
          const expectedKinds = kept.map((keep, i) => (keep ? 'audio' : kept[i - 1] ? 'repeat' : 'silence'));
          expect(out.map((f) => f.kind)).toEqual(expectedKinds);
          // Audio is the packet's own; a repeat copies the frame before it; silence is zeros.
          const content = out.map((f, i) => (f.kind === 'silence' ? 0 : 1000 + (f.kind === 'audio' ? i : i - 1)));
          expect(out.map((f) => (f.samples.every((v) => v === f.samples[0]) ? f.samples[0] : Number.NaN))).toEqual(
            content,
          );
          expect(buffer.stats.concealed).toBe(kept.filter((k) => !k).length);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('waits for a missing frame only until the target depth of newer audio has arrived', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 60 });
    for (const s of [1, 2, 3]) buffer.push(packet(s));
    for (let i = 0; i < 3; i++) buffer.pull();
    buffer.push(packet(5));
    buffer.push(packet(6));
    expect(buffer.pull()).toBeUndefined();
    buffer.push(packet(7));
    expect(buffer.pull()).toMatchObject({ sequence: 4, kind: 'repeat' });
    expect(buffer.pull()).toMatchObject({ sequence: 5, kind: 'audio' });
    // The lost frame turning up afterwards is too late.
    expect(buffer.push(packet(4))).toBe('late');
  });

  it('drops duplicates, whether still waiting or already played', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 40 });
    expect(buffer.push(packet(1))).toBe('accepted');
    expect(buffer.push(packet(1))).toBe('duplicate');
    buffer.push(packet(2));
    expect(buffer.pull()?.sequence).toBe(1);
    expect(buffer.push(packet(1))).toBe('duplicate');
    expect(run(buffer, [packet(2), packet(3)]).map((f) => f.sequence)).toEqual([2, 3]);
    expect(buffer.stats.duplicate).toBe(3);
  });

  it('follows RTP’s 16-bit sequence numbers across the wrap', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 60 });
    const sequences = Array.from({ length: 40 }, (_, i) => 65_520 + i);
    const out = run(
      buffer,
      locallyShuffled(
        sequences.map((s) => packet(s)),
        [0, 2, 1],
        2,
      ),
    );
    expect(out.map((f) => f.sequence)).toEqual(sequences);
  });

  it('takes carriers’ counters that never wrap when the modulus is 0', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 40, sequenceModulus: 0 });
    const sequences = [70_000, 70_001, 70_002, 140_000];
    const out = run(
      buffer,
      sequences.map((s) => packet(s, 0)),
    );
    expect(out.map((f) => f.sequence)).toEqual(sequences);
    expect(buffer.stats.resyncs).toBe(1);
  });

  it('treats a jump of more than a second as a new stream: held audio first, no made-up silence', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 60 });
    const before = run(buffer, [packet(10), packet(11), packet(13)]);
    expect(before.map((f) => [f.sequence, f.kind])).toEqual([
      [10, 'audio'],
      [11, 'audio'],
      [12, 'repeat'],
      [13, 'audio'],
    ]);
    expect(buffer.push(packet(14 + JITTER_RESYNC_FRAMES))).toBe('resync');
    expect(buffer.drain().map((f) => f.sequence)).toEqual([14 + JITTER_RESYNC_FRAMES]);
  });

  it('follows a sender that restarts its sequence lower, after a few frames prove it', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 40 });
    run(buffer, [packet(30_000), packet(30_001)]);
    expect(buffer.push(packet(5))).toBe('late');
    expect(buffer.push(packet(6))).toBe('late');
    expect(buffer.push(packet(7))).toBe('resync');
    expect(run(buffer, [packet(8)]).map((f) => f.sequence)).toEqual([7, 8]);
  });

  it('stays bounded when nobody pulls: the oldest positions give way, in order, and memory stops growing', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 60, maxDepthMs: 200 });
    for (let s = 0; s < 1000; s++) buffer.push(packet(s));
    expect(buffer.buffered).toBeLessThanOrEqual(10 + JITTER_RESYNC_FRAMES + 10);
    expect(buffer.stats.forced).toBe(1000 - 10);
    const out = buffer.drain();
    const sequences = out.map((f) => f.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(sequences.at(-1)).toBe(999);
    expect(buffer.stats.dropped).toBe(1000 - out.length);
  });

  it('fills an outage shorter than a resync with concealment, even when it overflows the depth', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 60, maxDepthMs: 200 });
    const out = run(buffer, [packet(0), packet(1), packet(2), packet(30), packet(31), packet(32)]);
    expect(out.map((f) => f.sequence)).toEqual(Array.from({ length: 33 }, (_, i) => i));
    expect(buffer.stats.dropped).toBe(0);
  });

  it('fixes the start once anything has left: an earlier frame after that is late, not a new start', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 60, maxDepthMs: 100 });
    buffer.push(packet(10));
    buffer.push(packet(16));
    // The pre-roll never completed, but 10 and the concealment of 11 were forced out to make room for 16.
    expect(buffer.pull()?.sequence).toBe(10);
    expect(buffer.pull()?.sequence).toBe(11);
    expect(buffer.push(packet(9))).toBe('late');
  });

  it('refuses malformed frames without throwing, and bad options loudly', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME });
    expect(buffer.push({ sequence: 1, samples: new Int16Array(80) })).toBe('malformed');
    expect(buffer.push({ sequence: Number.NaN, samples: new Int16Array(FRAME) })).toBe('malformed');
    expect(buffer.stats.malformed).toBe(2);
    expect(() => new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 200, maxDepthMs: 200 })).toThrow(RangeError);
    expect(() => new JitterBuffer({ frameSamples: 0 })).toThrow(RangeError);
  });

  it('conceals with silence only when asked to, and starts over after reset', () => {
    const buffer = new JitterBuffer({ frameSamples: FRAME, targetDepthMs: 20, concealment: 'silence' });
    expect(run(buffer, [packet(1), packet(3)]).map((f) => f.kind)).toEqual(['audio', 'silence', 'audio']);
    buffer.reset();
    expect(run(buffer, [packet(500), packet(501)]).map((f) => f.sequence)).toEqual([500, 501]);
  });
});
