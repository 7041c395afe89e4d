/**
 * Streams PCM16 (mono, or interleaved stereo) into an Ogg Opus file (RFC 7845): an OpusHead page, an OpusTags page, then audio pages of
 * 20 ms Opus packets, the last flagged end-of-stream. About a tenth the size of the WAV of the same call (32 kbit/s
 * against 256 kbit/s), and playable by browsers, so it is what recordings are stored as.
 *
 * Timing (RFC 7845 §4): granule positions count 48 kHz samples whatever the input rate, pre-skip included. The
 * encoder's lookahead is declared as pre-skip, so players drop the encoder's start-up; at the end the encoder is fed
 * silence until the real audio is through, and the last page's granule position trims the excess, so the file
 * plays for exactly as long as the audio written.
 */
import { randomInt } from 'node:crypto';
import type { ByteSink } from './byte-sink.ts';
import { Framer } from './framer.ts';
import {
  OGG_BEGINNING_OF_STREAM,
  OGG_END_OF_STREAM,
  MAX_PAGE_SEGMENTS,
  encodeOggPage,
  segmentsFor,
} from './ogg-page.ts';
import { OpusEncoder, type OpusChannels, type OpusOptions, type OpusSampleRate } from './opus-codec.ts';

/** Granule positions are always at 48 kHz (RFC 7845 §4). */
const GRANULE_RATE = 48_000;
/**
 * The encoder's lookahead, in 48 kHz samples: libopus delays its output by 2.5 ms of analysis plus 4 ms of delay
 * compensation (6.5 ms) at every rate in its AUDIO mode; decoders discard this many samples from the start.
 */
export const OPUS_PRE_SKIP = 312;
/**
 * Packets per audio page at most: 50 × 20 ms is 1 s, opusenc's default page delay; a crash loses at most that, and
 * a reader seeking by page lands within a second.
 */
const PAGE_MAX_PACKETS = 50;
/** What `opusinfo` and players show as the encoder. */
const VENDOR = 'Parley';

export interface OggOpusWriterOptions extends OpusOptions {
  /** Rate of the PCM given to `write`, in Hz: one of Opus's own (16 kHz for the engine's audio). */
  sampleRate: OpusSampleRate;
  /** The stream's serial number; random by default. */
  serial?: number;
  /** User comments (`TITLE`, `CALL_ID`…), written to OpusTags as KEY=value. */
  tags?: Readonly<Record<string, string>>;
}

export class OggOpusWriter {
  readonly sampleRate: OpusSampleRate;
  readonly channels: OpusChannels;
  readonly #sink: Pick<ByteSink, 'append' | 'close'>;
  readonly #encoder: OpusEncoder;
  readonly #framer: Framer;
  readonly #serial: number;
  /** 48 kHz samples in one frame: 960 for 20 ms. */
  readonly #granulePerFrame: number;
  #pageSequence = 0;
  #page: Uint8Array[] = [];
  #pageSegments = 0;
  /** Granule position after the last packet encoded (pre-skip included). */
  #granule = 0n;
  /** Samples given to `write` per channel, at the input rate. */
  #inputSamples = 0;
  #closed = false;

  /** Writes the two header pages at once. */
  constructor(sink: Pick<ByteSink, 'append' | 'close'>, options: OggOpusWriterOptions) {
    this.#sink = sink;
    this.sampleRate = options.sampleRate;
    this.#encoder = new OpusEncoder(options.sampleRate, options);
    this.channels = this.#encoder.channels;
    this.#framer = new Framer(this.#encoder.frameSamples * this.channels);
    this.#granulePerFrame = (this.#encoder.frameSamples * GRANULE_RATE) / options.sampleRate;
    this.#serial = options.serial ?? randomInt(0, 2 ** 32);
    this.#writePage([opusHead(options.sampleRate, this.channels)], OGG_BEGINNING_OF_STREAM, 0n);
    this.#writePage([opusTags(options.tags ?? {})], 0, 0n);
  }

  /** Audio written so far, in ms. */
  get durationMs(): number {
    return (this.#inputSamples / this.sampleRate) * 1000;
  }

  /** Appends samples at the writer's rate (interleaved when stereo), any length. Ignored after close. */
  write(samples: Int16Array): void {
    if (this.#closed) return;
    this.#inputSamples += samples.length / this.channels;
    for (const frame of this.#framer.push(samples)) this.#addFrame(frame);
  }

  /** Encodes what is left, writes the end-of-stream page and closes the sink. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      try {
        const last = this.#framer.flush();
        if (last) this.#addFrame(last);
        // Feed silence until the encoder's lookahead has pushed the last real sample out.
        const end = BigInt(OPUS_PRE_SKIP) + BigInt(Math.round((this.#inputSamples * GRANULE_RATE) / this.sampleRate));
        const silence = new Int16Array(this.#encoder.frameSamples * this.channels);
        while (this.#granule < end) this.#addFrame(silence);
        // The granule position of the last page trims the padding (RFC 7845 §4.5).
        this.#writePage(this.#page, OGG_END_OF_STREAM, end);
      } finally {
        this.#encoder.close();
      }
    }
    await this.#sink.close();
  }

  #addFrame(frame: Int16Array): void {
    const packet = this.#encoder.encode(frame);
    const segments = segmentsFor(packet.length);
    if (this.#page.length >= PAGE_MAX_PACKETS || this.#pageSegments + segments > MAX_PAGE_SEGMENTS) {
      this.#writePage(this.#page, 0, this.#granule);
    }
    this.#page.push(packet);
    this.#pageSegments += segments;
    this.#granule += BigInt(this.#granulePerFrame);
  }

  #writePage(packets: Uint8Array[], flags: number, granulePosition: bigint): void {
    this.#sink.append(
      encodeOggPage({ flags, granulePosition, serial: this.#serial, sequence: this.#pageSequence++, packets }),
    );
    if (packets === this.#page) {
      this.#page = [];
      this.#pageSegments = 0;
    }
  }
}

/** The identification header (RFC 7845 §5.1), mono or stereo, channel mapping family 0. */
function opusHead(inputSampleRate: number, channels: OpusChannels): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1; // version
  head[9] = channels;
  head.writeUInt16LE(OPUS_PRE_SKIP, 10);
  head.writeUInt32LE(inputSampleRate, 12); // informational: what the audio was before encoding
  head.writeInt16LE(0, 16); // output gain
  head[18] = 0; // mapping family: mono/stereo, no mapping table
  return head;
}

/** The comment header (RFC 7845 §5.2). */
function opusTags(tags: Readonly<Record<string, string>>): Buffer {
  const comments = Object.entries(tags).map(([key, value]) => Buffer.from(`${key}=${value}`, 'utf8'));
  const vendor = Buffer.from(VENDOR, 'utf8');
  const parts: Buffer[] = [Buffer.from('OpusTags', 'latin1'), u32(vendor.length), vendor, u32(comments.length)];
  for (const comment of comments) parts.push(u32(comment.length), comment);
  return Buffer.concat(parts);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value);
  return out;
}
