/**
 * The audio of a browser call both ways: Opus in RTP (RFC 7587), the session's 20 ms frames of 16 kHz PCM16.
 *
 * The RTP clock of Opus is always 48 kHz (RFC 7587 §4.1), whatever the codec runs at; libopus encodes and decodes
 * at any of its rates, resampling inside the codec. The session's audio is 16 kHz, so the codec runs at 16 kHz both
 * ways: a browser decodes the packets to 48 kHz itself, and its 48 kHz packets decode straight to 16 kHz — no
 * separate resampler, and no work spent on a band (8–24 kHz) the recogniser and the voice never carry.
 *
 * Inbound packets go through InboundAudio (the carriers' jitter handling: duplicates and late packets dropped, gaps
 * concealed, 20 ms framing for any packet duration), keyed by the RTP sequence number unwrapped past 65535, after
 * OpusDepacketiser has put reordered packets back in order.
 */
import { ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import { OpusDecoder, OpusEncoder } from '../../audio/opus-codec.ts';
import { InboundAudio } from '../carrier-ws/inbound-audio.ts';

/** RTP timestamp ticks per 20 ms frame: Opus's RTP clock is 48 kHz (RFC 7587 §4.1). */
export const OPUS_RTP_TICKS_PER_FRAME = 960;
/**
 * A pause in agent audio longer than this, ms, starts a new talkspurt: the timestamp jumps by the pause (so the
 * browser's jitter buffer sees the gap in time, not a burst) and the marker bit is set (RFC 3550 §5.1).
 */
const TALKSPURT_GAP_MS = 60;
/** After a gap, how many later packets wait for the missing one before it is given up: 60 ms of 20 ms packets. */
export const REORDER_WAIT_PACKETS = 3;
/** Decoded sequence numbers remembered (1.3 s of 20 ms packets), to count a repeat as a duplicate, not as late. */
const DECODED_HISTORY = 64;
/** Largest Opus packet taken, bytes: 120 ms at 510 kbit/s is 7.6 KB, libopus's own ceiling is 1275 per frame × 6. */
export const MAX_OPUS_PACKET_BYTES = 7_660;

/** One RTP packet's fields as we make them (the sender fills in SSRC and payload type). */
export interface OutboundRtp {
  sequenceNumber: number;
  timestamp: number;
  marker: boolean;
  payload: Buffer;
}

/** Agent audio to Opus RTP: one packet per 20 ms frame. */
export class OpusRtpPacketiser {
  readonly #encoder: OpusEncoder;
  readonly #now: () => number;
  #sequence = Math.floor(Math.random() * 0x10000);
  #timestamp = Math.floor(Math.random() * 0x1_0000_0000);
  #lastSentAt: number | undefined;
  #newTalkspurt = true;

  /** @param now the clock, ms (tests move it) */
  constructor(now: () => number = () => performance.now()) {
    this.#encoder = new OpusEncoder(ENGINE_SAMPLE_RATE);
    this.#now = now;
  }

  /** One 20 ms frame of 16 kHz PCM16 to one packet. */
  packet(frame: Int16Array): OutboundRtp {
    const now = this.#now();
    let marker = this.#newTalkspurt;
    if (this.#lastSentAt !== undefined) {
      const gap = now - this.#lastSentAt;
      if (gap > TALKSPURT_GAP_MS) {
        // Whole frames of silence the pause stood for, beyond the 20 ms this frame's own step accounts for.
        const frames = Math.round(gap / 20) - 1;
        this.#timestamp = (this.#timestamp + frames * OPUS_RTP_TICKS_PER_FRAME) >>> 0;
        marker = true;
      }
      this.#timestamp = (this.#timestamp + OPUS_RTP_TICKS_PER_FRAME) >>> 0;
    }
    this.#lastSentAt = now;
    this.#newTalkspurt = false;
    this.#sequence = (this.#sequence + 1) & 0xffff;
    const payload = Buffer.from(this.#encoder.encode(frame));
    return { sequenceNumber: this.#sequence, timestamp: this.#timestamp, marker, payload };
  }

  /** After a clear: the next packet starts a talkspurt. */
  interrupt(): void {
    this.#newTalkspurt = true;
  }

  close(): void {
    this.#encoder.close();
  }
}

export interface OpusDepacketiserStats {
  packets: number;
  /** Packets Opus could not decode, or over the size bound. */
  corrupt: number;
  /** Packets received twice. */
  duplicates: number;
  /** Packets that came after their place had been given up (concealed). */
  late: number;
  concealedFrames: number;
}

/**
 * Caller audio from Opus RTP to the session's 20 ms frames of 16 kHz PCM16. Packets are put back in sequence order
 * before they are decoded (Opus decoding is stateful: a packet decoded out of order garbles the frames after it). A
 * packet in order is decoded at once; after a gap, later packets wait until REORDER_WAIT_PACKETS of them have come
 * (60 ms), then the missing one is given up and concealed by InboundAudio (the carriers' gap filling and framing).
 */
export class OpusDepacketiser {
  readonly #decoder = new OpusDecoder(ENGINE_SAMPLE_RATE);
  readonly #inbound: InboundAudio;
  /** Packets waiting for an earlier one, by unwrapped sequence number. */
  readonly #held = new Map<number, Buffer>();
  /** Sequence numbers decoded lately, at index sequence % DECODED_HISTORY: a duplicate is told from a late packet. */
  readonly #decoded = new Float64Array(DECODED_HISTORY).fill(Number.NaN);
  /** The unwrapped sequence number of the newest packet so far. */
  #newest: number | undefined;
  /** The next sequence number to decode. */
  #next: number | undefined;
  #packets = 0;
  #corrupt = 0;
  #duplicates = 0;
  #late = 0;

  /** @param onFrame takes each 20 ms frame of 16 kHz audio */
  constructor(onFrame: (samples: Int16Array) => void) {
    this.#inbound = new InboundAudio({ encoding: 'l16', sampleRate: ENGINE_SAMPLE_RATE, byteOrder: 'le' }, onFrame);
  }

  get stats(): OpusDepacketiserStats {
    return {
      packets: this.#packets,
      corrupt: this.#corrupt,
      duplicates: this.#duplicates,
      late: this.#late,
      concealedFrames: this.#inbound.stats.concealedFrames,
    };
  }

  push(sequenceNumber: number, payload: Buffer): void {
    this.#packets += 1;
    if (payload.length === 0 || payload.length > MAX_OPUS_PACKET_BYTES) {
      this.#corrupt += 1;
      return;
    }
    const sequence = this.#unwrap(sequenceNumber);
    this.#next ??= sequence;
    if (sequence < this.#next) {
      if (this.#decoded[sequence % DECODED_HISTORY] === sequence) this.#duplicates += 1;
      else this.#late += 1;
      return;
    }
    if (this.#held.has(sequence)) {
      this.#duplicates += 1;
      return;
    }
    this.#held.set(sequence, payload);
    this.#release();
  }

  /** Decodes what is next in order; gives up a missing packet once enough later ones wait behind it. */
  #release(): void {
    for (;;) {
      const next = this.#next!;
      const payload = this.#held.get(next);
      if (payload) {
        this.#held.delete(next);
        this.#decoded[next % DECODED_HISTORY] = next;
        this.#next = next + 1;
        this.#decode(next, payload);
        continue;
      }
      if (this.#held.size < REORDER_WAIT_PACKETS) return;
      this.#next = Math.min(...this.#held.keys());
    }
  }

  #decode(sequence: number, payload: Buffer): void {
    let samples: Int16Array;
    try {
      samples = this.#decoder.decode(payload);
    } catch {
      this.#corrupt += 1;
      return;
    }
    this.#inbound.push(samples, sequence);
  }

  /** The sequence number counted on past 65535: the nearest value to the newest that has these low 16 bits. */
  #unwrap(sequence: number): number {
    if (this.#newest === undefined) {
      this.#newest = sequence;
      return sequence;
    }
    const delta = ((sequence - (this.#newest & 0xffff) + 0x8000) & 0xffff) - 0x8000;
    const value = this.#newest + delta;
    if (value > this.#newest) this.#newest = value;
    return value;
  }

  close(): void {
    this.#decoder.close();
  }
}
