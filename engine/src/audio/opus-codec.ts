/**
 * Opus encode and decode of 20 ms mono frames: WebRTC's codec, and the codec of our OGG recordings.
 *
 * The work is done by libopus through @discordjs/opus (a native addon, built from source at install). Where that
 * addon cannot load (no compiler at install time, an unusual platform), opusscript, libopus compiled to WebAssembly,
 * takes over: same bitstream, more CPU (`npm run bench -- engine-audio` measures both). Both are loaded on first
 * use, never at import.
 */
import { createRequire } from 'node:module';
import { samplesPerFrame } from './format.ts';
import { pcm16FromBytesLE } from './pcm16.ts';

/** The rates libopus encodes and decodes at; anything else must be resampled first. */
export type OpusSampleRate = 8000 | 12000 | 16000 | 24000 | 48000;
export const OPUS_SAMPLE_RATES: readonly OpusSampleRate[] = [8000, 12000, 16000, 24000, 48000];

/** `native`: @discordjs/opus; `wasm`: opusscript. */
export type OpusBackendName = 'native' | 'wasm';

/**
 * Default bitrate, in bit/s: within RFC 7587's recommended 28–40 kbit/s for full-band speech (§3.1.1), and
 * more than wideband (16 kHz) speech needs.
 */
export const OPUS_DEFAULT_BITRATE = 32_000;
/** libopus's OPUS_APPLICATION_AUDIO: the only mode @discordjs/opus offers, used for both backends alike. */
const OPUS_APPLICATION_AUDIO = 2049;

export interface OpusOptions {
  /** Force a backend (tests, the bench); by default the native one when it loads, else wasm. */
  backend?: OpusBackendName;
  /** Encoder bitrate, in bit/s; OPUS_DEFAULT_BITRATE by default. */
  bitrate?: number;
  /** 1 (mono, default) or 2: stereo frames are interleaved left, right (a call recording: caller, agent). */
  channels?: OpusChannels;
}

export type OpusChannels = 1 | 2;

/** What both backends offer, reduced to what we use. */
interface Codec {
  encode(pcm: Buffer, frameSamples: number): Buffer;
  decode(packet: Buffer): Buffer;
  setBitrate(bitrate: number): void;
  free(): void;
}

interface NativeModule {
  OpusEncoder: new (
    rate: number,
    channels: number,
  ) => {
    encode(pcm: Buffer): Buffer;
    decode(packet: Buffer): Buffer;
    setBitrate(bitrate: number): void;
  };
}

interface WasmCodec {
  encode(pcm: Buffer, frameSize: number): Buffer;
  decode(packet: Buffer): Buffer;
  setBitrate(bitrate: number): void;
  delete(): void;
}
type WasmModule = new (rate: number, channels: number, application: number) => WasmCodec;

const require = createRequire(import.meta.url);
let native: NativeModule | null | undefined;
let wasm: WasmModule | undefined;

function loadNative(): NativeModule | null {
  if (native === undefined) {
    try {
      native = require('@discordjs/opus') as NativeModule;
    } catch {
      native = null;
    }
  }
  return native;
}

function loadWasm(): WasmModule {
  wasm ??= require('opusscript') as WasmModule;
  return wasm;
}

/** The backend new codecs get by default: `native` when @discordjs/opus loads, `wasm` otherwise. */
export function opusBackend(): OpusBackendName {
  return loadNative() ? 'native' : 'wasm';
}

function createCodec(sampleRate: OpusSampleRate, backend: OpusBackendName, channels: OpusChannels = 1): Codec {
  if (backend === 'native') {
    const module = loadNative();
    if (!module) throw new Error('@discordjs/opus is not available in this installation');
    const codec = new module.OpusEncoder(sampleRate, channels);
    return {
      encode: (pcm) => codec.encode(pcm),
      decode: (packet) => codec.decode(packet),
      setBitrate: (bitrate) => codec.setBitrate(bitrate),
      // The addon frees libopus state when the object is garbage-collected.
      free: () => {},
    };
  }
  const codec = new (loadWasm())(sampleRate, channels, OPUS_APPLICATION_AUDIO);
  return {
    encode: (pcm, frameSamples) => codec.encode(pcm, frameSamples),
    decode: (packet) => codec.decode(packet),
    setBitrate: (bitrate) => codec.setBitrate(bitrate),
    // WebAssembly memory is not garbage-collected: it must be given back by hand.
    free: () => codec.delete(),
  };
}

function checkRate(sampleRate: number): asserts sampleRate is OpusSampleRate {
  if (!OPUS_SAMPLE_RATES.includes(sampleRate as OpusSampleRate)) {
    throw new RangeError(`Opus works at ${OPUS_SAMPLE_RATES.join(', ')} Hz, not ${sampleRate}`);
  }
}

/** Encodes 20 ms PCM16 frames (mono, or interleaved stereo) to Opus packets. */
export class OpusEncoder {
  readonly sampleRate: OpusSampleRate;
  readonly channels: OpusChannels;
  /** Samples per channel in each frame `encode` takes: 20 ms at `sampleRate`. */
  readonly frameSamples: number;
  readonly backend: OpusBackendName;
  readonly #codec: Codec;
  #closed = false;

  /** @param sampleRate of the PCM given to `encode`, in Hz; 48 kHz by default (WebRTC's clock) */
  constructor(sampleRate: OpusSampleRate = 48_000, options: OpusOptions = {}) {
    checkRate(sampleRate);
    this.sampleRate = sampleRate;
    this.channels = options.channels ?? 1;
    this.frameSamples = samplesPerFrame(sampleRate);
    this.backend = options.backend ?? opusBackend();
    this.#codec = createCodec(sampleRate, this.backend, this.channels);
    this.#codec.setBitrate((options.bitrate ?? OPUS_DEFAULT_BITRATE) * this.channels);
  }

  /** One 20 ms frame (exactly `frameSamples` × `channels` samples, interleaved) to one Opus packet. */
  encode(frame: Int16Array): Uint8Array {
    if (this.#closed) throw new Error('the Opus encoder is closed');
    if (frame.length !== this.frameSamples * this.channels) {
      throw new RangeError(
        `an Opus frame is ${this.frameSamples * this.channels} samples (20 ms at ${this.sampleRate} Hz × ${this.channels} channel(s)), got ${frame.length}`,
      );
    }
    return this.#codec.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), this.frameSamples);
  }

  /** Frees the codec's memory. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#codec.free();
  }
}

/** Decodes Opus packets to mono PCM16 at the decoder's rate, whatever rate they were encoded at. */
export class OpusDecoder {
  readonly sampleRate: OpusSampleRate;
  readonly backend: OpusBackendName;
  readonly #codec: Codec;
  #closed = false;

  /** @param sampleRate of the PCM `decode` returns, in Hz; 48 kHz by default */
  constructor(sampleRate: OpusSampleRate = 48_000, options: Pick<OpusOptions, 'backend'> = {}) {
    checkRate(sampleRate);
    this.sampleRate = sampleRate;
    this.backend = options.backend ?? opusBackend();
    this.#codec = createCodec(sampleRate, this.backend);
  }

  /**
   * One Opus packet to PCM16 (20 ms of it for our packets; a packet says its own duration).
   * @throws when the packet is corrupt: the caller decides whether to conceal or drop
   */
  decode(packet: Uint8Array): Int16Array {
    if (this.#closed) throw new Error('the Opus decoder is closed');
    const bytes = Buffer.isBuffer(packet) ? packet : Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength);
    return pcm16FromBytesLE(this.#codec.decode(bytes));
  }

  /** Frees the codec's memory. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#codec.free();
  }
}
