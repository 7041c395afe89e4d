/**
 * The inbound jitter buffer for carrier and RTP audio: frames arrive with sequence numbers, late, twice, out of
 * order or not at all; the call session wants them once each, in order, with gaps filled.
 *
 * Playout is driven by arrivals, not by a timer: a frame leaves as soon as every frame before it has left. A
 * missing frame is waited for until `targetDepthMs` of newer audio has arrived behind it, then concealed (the last
 * frame repeated once, silence after that). In-order audio therefore passes with no delay beyond the pre-roll at
 * the start of the stream; reordered audio waits at most the target depth. Since each frame carries 20 ms,
 * "audio that arrived since" is also a clock: a sender that keeps sending keeps the buffer moving.
 *
 * Bounds: at most `maxDepthMs` of frames wait. A frame beyond that forces the oldest positions out (in order,
 * concealed where missing) to make room: late audio is worse than lost audio. A jump of more than
 * JITTER_RESYNC_FRAMES is a new stream (the sender restarted, or a long outage) and is not filled with silence.
 */
import { FRAME_MS } from './format.ts';

/** Default wait for a missing frame: covers the reordering of carrier websockets and most RTP paths, for 60 ms. */
export const JITTER_TARGET_DEPTH_MS = 60;
/** Default bound on waiting audio: room for the target depth plus a consumer that falls a few frames behind. */
export const JITTER_MAX_DEPTH_MS = 200;
/** A jump of more than 1 s of frames is a new stream, not loss: nobody wants a second of made-up silence. */
export const JITTER_RESYNC_FRAMES = 50;
/** Consecutive in-order frames far behind the playout point that prove the sender restarted its sequence. */
export const JITTER_RESYNC_PROBATION = 3;
/** Released sequence numbers remembered to tell a duplicate from a frame that came too late. */
const RELEASED_HISTORY = 64;

export interface JitterPacket {
  /** The sender's sequence number: RTP's 16-bit wrapping one, or a carrier's ever-increasing counter. */
  sequence: number;
  /** The sender's media timestamp, passed through untouched (RTP: the sample clock; carriers: ms). */
  timestamp?: number;
  /** One frame of decoded PCM16: exactly `frameSamples` samples. */
  samples: Int16Array;
}

export interface JitterFrame {
  /** The sequence number, unwrapped: it keeps counting past 65535. */
  sequence: number;
  /** The packet's timestamp; undefined for concealment. */
  timestamp: number | undefined;
  samples: Int16Array;
  /** `audio` as received; `repeat` the previous frame again for a lost one; `silence` for further losses. */
  kind: 'audio' | 'repeat' | 'silence';
}

/** What became of a pushed packet. */
export type JitterPushOutcome = 'accepted' | 'late' | 'duplicate' | 'malformed' | 'resync';

export interface JitterBufferOptions {
  /** Samples in one frame (160 for 20 ms at 8 kHz). */
  frameSamples: number;
  /** Length of one frame, in ms; FRAME_MS (20) by default. */
  frameMs?: number;
  /** How long a missing frame is waited for, in ms of audio that arrived after it. */
  targetDepthMs?: number;
  /** Most audio held, in ms; must exceed the target depth by at least one frame. */
  maxDepthMs?: number;
  /** Sequence numbers wrap at this value (65536 for RTP); 0 for counters that never wrap. */
  sequenceModulus?: number;
  /** How a lost frame is filled: the last frame once and then silence, or silence at once. */
  concealment?: 'repeat-last' | 'silence';
}

/** Counters since the buffer was made. */
export interface JitterStats {
  received: number;
  late: number;
  duplicate: number;
  malformed: number;
  /** Frames filled in for lost ones. */
  concealed: number;
  /** Frames pushed out before their time because the buffer was full. */
  forced: number;
  /** Frames dropped because the consumer left more than the bound unread. */
  dropped: number;
  resyncs: number;
}

interface Slot {
  sequence: number;
  timestamp: number | undefined;
  samples: Int16Array;
}

export class JitterBuffer {
  readonly frameSamples: number;
  readonly #targetFrames: number;
  readonly #capacity: number;
  readonly #modulus: number;
  readonly #concealment: 'repeat-last' | 'silence';
  /** Waiting frames, at index sequence % capacity; every waiting sequence lies in [#expected, #expected + capacity). */
  readonly #slots: (Slot | undefined)[];
  /** Frames already released (forced out, or held across a resync) and not yet pulled, oldest first. */
  readonly #ready: JitterFrame[] = [];
  /** Sequences of frames released as audio, at index sequence % RELEASED_HISTORY. */
  readonly #released = new Float64Array(RELEASED_HISTORY).fill(Number.NaN);
  readonly #stats: JitterStats = {
    received: 0,
    late: 0,
    duplicate: 0,
    malformed: 0,
    concealed: 0,
    forced: 0,
    dropped: 0,
    resyncs: 0,
  };
  #waiting = 0;
  /** False during the pre-roll: nothing released yet, and frames earlier than the first may still arrive. */
  #started = false;
  /** Next sequence to release; undefined until the first packet. */
  #expected: number | undefined;
  #newest = 0;
  #lastKind: JitterFrame['kind'] = 'silence';
  #lastAudio: Int16Array | undefined;
  #probation: { next: number; count: number } | undefined;

  constructor(options: JitterBufferOptions) {
    const frameMs = options.frameMs ?? FRAME_MS;
    const targetFrames = Math.max(1, Math.round((options.targetDepthMs ?? JITTER_TARGET_DEPTH_MS) / frameMs));
    const capacity = Math.round((options.maxDepthMs ?? JITTER_MAX_DEPTH_MS) / frameMs);
    if (!Number.isSafeInteger(options.frameSamples) || options.frameSamples < 1) {
      throw new RangeError(`frameSamples must be a positive integer, got ${options.frameSamples}`);
    }
    if (capacity <= targetFrames) throw new RangeError('maxDepthMs must exceed targetDepthMs by at least one frame');
    this.frameSamples = options.frameSamples;
    this.#targetFrames = targetFrames;
    this.#capacity = capacity;
    this.#modulus = options.sequenceModulus ?? 65536;
    this.#concealment = options.concealment ?? 'repeat-last';
    this.#slots = new Array<Slot | undefined>(capacity);
  }

  /** Frames waiting, plus frames released but not yet pulled. */
  get buffered(): number {
    return this.#waiting + this.#ready.length;
  }

  get stats(): Readonly<JitterStats> {
    return this.#stats;
  }

  /** Takes one packet. Never throws for bad network input: the outcome says what happened to it. */
  push(packet: JitterPacket): JitterPushOutcome {
    this.#stats.received += 1;
    if (packet.samples.length !== this.frameSamples || !Number.isSafeInteger(packet.sequence)) {
      this.#stats.malformed += 1;
      return 'malformed';
    }
    const sequence = this.#unwrap(packet.sequence);
    const slot: Slot = { sequence, timestamp: packet.timestamp, samples: packet.samples };
    if (this.#expected === undefined) {
      this.#expected = sequence;
      this.#newest = sequence;
      this.#store(slot);
      return 'accepted';
    }
    if (sequence < this.#expected) return this.#behind(slot);
    this.#probation = undefined;
    if (sequence - this.#newest >= JITTER_RESYNC_FRAMES) {
      this.#resync(slot);
      return 'resync';
    }
    if (this.#slots[modulo(sequence, this.#capacity)]?.sequence === sequence) {
      this.#stats.duplicate += 1;
      return 'duplicate';
    }
    // Full: the oldest positions give way, released in order (concealed where missing) for the next pulls.
    while (sequence - this.#expected >= this.#capacity) {
      this.#stats.forced += 1;
      this.#queueReady(this.#releaseExpected());
    }
    this.#store(slot);
    return 'accepted';
  }

  /**
   * The next frame in sequence order, or undefined when it is not due yet: before the pre-roll (target depth) has
   * arrived, or while a missing frame is still being waited for.
   */
  pull(): JitterFrame | undefined {
    const ready = this.#ready.shift();
    if (ready) return ready;
    if (this.#expected === undefined || this.#waiting === 0) return undefined;
    if (!this.#started) {
      if (this.#waiting < this.#targetFrames) return undefined;
      this.#started = true;
    }
    const present = this.#slots[modulo(this.#expected, this.#capacity)]?.sequence === this.#expected;
    if (!present && this.#newest - this.#expected < this.#targetFrames) return undefined;
    return this.#releaseExpected();
  }

  /** Every frame still held, in order, gaps concealed: the stream ended or paused. Later packets carry on. */
  drain(): JitterFrame[] {
    const frames = this.#ready.splice(0);
    while (this.#waiting > 0) frames.push(this.#releaseExpected());
    return frames;
  }

  /** Forgets everything held and the sequence so far: the next packet starts a new stream with a new pre-roll. */
  reset(): void {
    this.#slots.fill(undefined);
    this.#ready.length = 0;
    this.#released.fill(Number.NaN);
    this.#waiting = 0;
    this.#started = false;
    this.#expected = undefined;
    this.#lastKind = 'silence';
    this.#lastAudio = undefined;
    this.#probation = undefined;
  }

  /** A packet behind the playout point: a duplicate, a late frame, or the start of a restarted sequence. */
  #behind(slot: Slot): JitterPushOutcome {
    const expected = this.#expected!;
    if (!this.#started && this.#newest - slot.sequence < this.#capacity) {
      // Still in the pre-roll, nothing released yet: an earlier frame simply moves the start back.
      this.#expected = slot.sequence;
      this.#store(slot);
      return 'accepted';
    }
    if (expected - slot.sequence > JITTER_RESYNC_FRAMES) {
      const probation = this.#probation;
      this.#probation =
        probation?.next === slot.sequence
          ? { next: slot.sequence + 1, count: probation.count + 1 }
          : { next: slot.sequence + 1, count: 1 };
      if (this.#probation.count >= JITTER_RESYNC_PROBATION) {
        this.#probation = undefined;
        this.#resync(slot);
        return 'resync';
      }
    }
    if (this.#released[modulo(slot.sequence, RELEASED_HISTORY)] === slot.sequence) {
      this.#stats.duplicate += 1;
      return 'duplicate';
    }
    this.#stats.late += 1;
    return 'late';
  }

  /** A new stream: what is held leaves in order without filling gaps, then playout restarts at `slot`. */
  #resync(slot: Slot): void {
    this.#stats.resyncs += 1;
    while (this.#waiting > 0) {
      const expected = this.#expected!;
      if (this.#slots[modulo(expected, this.#capacity)]?.sequence === expected)
        this.#queueReady(this.#releaseExpected());
      else this.#expected = expected + 1;
    }
    this.#expected = slot.sequence;
    this.#newest = slot.sequence;
    this.#store(slot);
  }

  #store(slot: Slot): void {
    this.#slots[modulo(slot.sequence, this.#capacity)] = slot;
    this.#waiting += 1;
    if (slot.sequence > this.#newest) this.#newest = slot.sequence;
  }

  /** Releases the frame at the playout point, or its concealment, and moves the point on. */
  #releaseExpected(): JitterFrame {
    const sequence = this.#expected!;
    this.#expected = sequence + 1;
    // Once anything has left, the stream's start is fixed: an earlier frame is late, not a new start.
    this.#started = true;
    const index = modulo(sequence, this.#capacity);
    const slot = this.#slots[index];
    if (slot?.sequence === sequence) {
      this.#slots[index] = undefined;
      this.#waiting -= 1;
      this.#released[modulo(sequence, RELEASED_HISTORY)] = sequence;
      this.#lastKind = 'audio';
      this.#lastAudio = slot.samples;
      return { sequence, timestamp: slot.timestamp, samples: slot.samples, kind: 'audio' };
    }
    this.#stats.concealed += 1;
    const repeat = this.#concealment === 'repeat-last' && this.#lastKind === 'audio' && this.#lastAudio !== undefined;
    this.#lastKind = repeat ? 'repeat' : 'silence';
    const samples = repeat ? this.#lastAudio!.slice() : new Int16Array(this.frameSamples);
    return { sequence, timestamp: undefined, samples, kind: this.#lastKind };
  }

  /**
   * Bounded: room for the concealment of the longest gap short of a resync plus a full buffer, so an outage never
   * loses frames here; a consumer that stops pulling loses the oldest released frames, never memory.
   */
  #queueReady(frame: JitterFrame): void {
    if (this.#ready.length >= JITTER_RESYNC_FRAMES + this.#capacity) {
      this.#ready.shift();
      this.#stats.dropped += 1;
    }
    this.#ready.push(frame);
  }

  /** The sequence number extended past its wrap, choosing the value nearest the newest seen. */
  #unwrap(raw: number): number {
    const modulus = this.#modulus;
    if (modulus === 0 || this.#expected === undefined) return raw;
    const reference = this.#newest;
    let delta = modulo(raw - reference, modulus);
    if (delta >= modulus / 2) delta -= modulus;
    return reference + delta;
  }
}

/** `value` mod `divisor`, never negative (unwrapped sequences may go below zero). */
function modulo(value: number, divisor: number): number {
  return ((value % divisor) + divisor) % divisor;
}
