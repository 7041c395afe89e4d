/**
 * The engine's audio toolkit (engine/package.json `exports` "./audio"): codecs (G.711, PCM16, Opus), the
 * resampler, 20 ms framing, the inbound jitter buffer, the process's pacing clock and its outputs, and the WAV and
 * Ogg Opus writers. Pure computation and local files only: nothing here knows about calls, buses or providers.
 *
 * The way audio goes (docs/architecture.md §3): inbound, transport bytes → decode (decodeMulaw / OpusDecoder / pcm16From…) →
 * JitterBuffer (carrier and RTP audio) → Resampler to ENGINE_SAMPLE_RATE (with `sourceBandHz: TELEPHONE_BAND_HZ`
 * for 8 kHz carrier audio, a third of the cost) → Framer; outbound, TTS chunks →
 * Resampler → Framer at the transport's rate → encode → PacedOutput, which the shared PacingClock drains one frame
 * per 20 ms.
 */
export { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE, FRAME_MS, samplesPerFrame, type AudioChunk } from './format.ts';
export {
  ALAW_SILENCE,
  ULAW_SILENCE,
  alawToLinear,
  decodeAlaw,
  decodeMulaw,
  encodeAlaw,
  encodeMulaw,
  linearToAlaw,
  linearToMulaw,
  mulawToLinear,
} from './g711.ts';
export { pcm16FromBytesBE, pcm16FromBytesLE, pcm16ToBytesBE, pcm16ToBytesLE, pcm16ViewLE } from './pcm16.ts';
export { Resampler, resample, type ResamplerOptions } from './resampler.ts';
export {
  MAX_PHASES,
  PASSBAND_EDGE,
  STOPBAND_ATTENUATION_DB,
  STOPBAND_EDGE,
  TELEPHONE_BAND_HZ,
} from './polyphase-filter.ts';
export { Framer } from './framer.ts';
export {
  JITTER_MAX_DEPTH_MS,
  JITTER_RESYNC_FRAMES,
  JITTER_RESYNC_PROBATION,
  JITTER_TARGET_DEPTH_MS,
  JitterBuffer,
  type JitterBufferOptions,
  type JitterFrame,
  type JitterPacket,
  type JitterPushOutcome,
  type JitterStats,
} from './jitter-buffer.ts';
export {
  PACING_MAX_CATCH_UP_FRAMES,
  PacingClock,
  SYSTEM_TIMERS,
  processPacingClock,
  type ClockOutput,
  type ClockTimers,
  type PacingClockOptions,
} from './pacing-clock.ts';
export {
  PACED_OUTPUT_CAPACITY_FRAMES,
  PacedOutput,
  PacedOutputClosedError,
  type MarkOutcome,
  type PacedOutputOptions,
} from './paced-output.ts';
export {
  OPUS_DEFAULT_BITRATE,
  OPUS_SAMPLE_RATES,
  OpusDecoder,
  OpusEncoder,
  opusBackend,
  type OpusBackendName,
  type OpusChannels,
  type OpusOptions,
  type OpusSampleRate,
} from './opus-codec.ts';
export {
  FILE_SINK_BATCH_BYTES,
  FILE_SINK_MAX_PENDING_BYTES,
  FileSink,
  FileSinkOverflowError,
  MemorySink,
  type ByteSink,
} from './byte-sink.ts';
export { WAV_HEADER_BYTES, WavFormatError, WavWriter, decodeWav, encodeWav, wavHeader } from './wav.ts';
export { OPUS_PRE_SKIP, OggOpusWriter, type OggOpusWriterOptions } from './ogg-opus-writer.ts';
export { oggCrc32 } from './ogg-page.ts';
export { decibels, rms, sineWave, toneAmplitude } from './tone.ts';
