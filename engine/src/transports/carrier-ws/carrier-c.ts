/**
 * carrier-c's media stream: an Exotel-style voicebot stream (the Voicebot applet, or the Connect Voice AI API's
 * `streamurl`), docs/architecture.md §5, in the shared Media Streams code (media-streams.ts): Twilio's events with
 * snake_case fields (stream_sid, call_sid, custom_parameters, media_format; the camelCase spellings are accepted
 * too), carrying raw 16-bit linear PCM (little-endian, mono) as base64, at 8000 Hz unless the start's media_format
 * says 16000 or 24000. The start's from and to are passed along as parameters; the stop says why (stop.reason).
 *
 * Exotel asks for outbound payloads in whole multiples of 320 bytes and of about 100 ms (smaller chunks break up
 * on jittery networks). What becomes of marks at a clear is not documented; we take the Twilio behaviour it
 * copies (pending marks echoed at once), which the transport tolerates either way.
 */
import { mediaStreamsProtocol } from './media-streams.ts';

/** Sample rates the voicebot applet offers (its `sample-rate` URL parameter). */
const SAMPLE_RATES = new Set([8000, 16000, 24000]);
/** The rate of a start that names none. */
const DEFAULT_RATE = 8000;

export const carrierC = mediaStreamsProtocol({
  carrier: 'carrier-c',
  fields: {
    streamId: ['stream_sid', 'streamSid'],
    callId: ['call_sid', 'callSid'],
    accountId: ['account_sid', 'accountSid'],
    customParameters: ['custom_parameters', 'customParameters'],
    mediaFormat: ['media_format', 'mediaFormat'],
    sampleRate: ['sample_rate', 'sampleRate'],
  },
  codec: (announced) => {
    const sampleRate = announced?.sampleRate ?? DEFAULT_RATE;
    if (!SAMPLE_RATES.has(sampleRate)) return { why: `start with sample rate ${sampleRate}` };
    return { encoding: 'l16', sampleRate, byteOrder: 'le' };
  },
  startParameters: ['from', 'to'],
  stopReason: true,
  outboundChunkMs: 100,
  outboundByteMultiple: 320,
});
