/**
 * Audio on the bus travels as binary payloads with a small fixed header, never as base64 JSON (docs/architecture.md §4):
 *
 *   byte 0      magic 0xA7 (tells audio from JSON control messages on a shared subject, which start with '{')
 *   byte 1      version (1)
 *   bytes 2–3   sample rate in Hz, uint16 big-endian (8000 … 48000)
 *   bytes 4–7   request number, uint32 BE: which TTS request or utterance the audio belongs to (0 when unused)
 *   bytes 8–11  sequence number, uint32 BE, per stream
 *   bytes 12–…  PCM16 little-endian mono samples
 */

export const AUDIO_FRAME_MAGIC = 0xa7;
export const AUDIO_FRAME_VERSION = 1;
export const AUDIO_FRAME_HEADER_BYTES = 12;

export interface AudioFrame {
  sampleRate: number;
  requestNumber: number;
  sequence: number;
  samples: Int16Array;
}

export class AudioFrameError extends Error {
  override name = 'AudioFrameError';
  readonly code = 'bad_audio_frame';
}

export function encodeAudioFrame(frame: AudioFrame): Uint8Array {
  const out = new Uint8Array(AUDIO_FRAME_HEADER_BYTES + frame.samples.length * 2);
  const view = new DataView(out.buffer);
  view.setUint8(0, AUDIO_FRAME_MAGIC);
  view.setUint8(1, AUDIO_FRAME_VERSION);
  view.setUint16(2, frame.sampleRate);
  view.setUint32(4, frame.requestNumber >>> 0);
  view.setUint32(8, frame.sequence >>> 0);
  for (let i = 0; i < frame.samples.length; i += 1)
    view.setInt16(AUDIO_FRAME_HEADER_BYTES + i * 2, frame.samples[i]!, true);
  return out;
}

/** Whether a payload on a mixed subject is an audio frame (rather than a JSON control message). */
export function isAudioFrame(payload: Uint8Array): boolean {
  return payload.length >= AUDIO_FRAME_HEADER_BYTES && payload[0] === AUDIO_FRAME_MAGIC;
}

export function decodeAudioFrame(payload: Uint8Array): AudioFrame {
  if (!isAudioFrame(payload)) throw new AudioFrameError('not an audio frame');
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  if (view.getUint8(1) !== AUDIO_FRAME_VERSION)
    throw new AudioFrameError(`unsupported audio frame version ${view.getUint8(1)}`);
  if ((payload.length - AUDIO_FRAME_HEADER_BYTES) % 2 !== 0) throw new AudioFrameError('odd number of PCM bytes');
  const count = (payload.length - AUDIO_FRAME_HEADER_BYTES) / 2;
  const samples = new Int16Array(count);
  for (let i = 0; i < count; i += 1) samples[i] = view.getInt16(AUDIO_FRAME_HEADER_BYTES + i * 2, true);
  return { sampleRate: view.getUint16(2), requestNumber: view.getUint32(4), sequence: view.getUint32(8), samples };
}
