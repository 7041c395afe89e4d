/**
 * The client side of a websocket call (callType `websocket`), as a telephone carrier would run it: it opens the
 * stream URL the placement answered and speaks the Media Streams dialect of carrier-b (docs/architecture.md §5):
 * `connected` and `start`, then a `media` message of 20 ms of 8 kHz μ-law every 20 ms — silence, or the caller's
 * sentence once the agent has finished speaking — echoing each `mark` the engine sends, until the engine hangs up.
 * What the agent said is kept, its pauses included, for the WAV.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { decodeMulaw, encodeMulaw, rms, ULAW_SILENCE } from '@parley/engine/audio';
import { CliError } from '../command.ts';
import { PHONE_SAMPLE_RATE } from './caller-voice.ts';

const FRAME_MS = 20;
const FRAME_SAMPLES = (PHONE_SAMPLE_RATE * FRAME_MS) / 1000;
/** A frame of the agent's louder than this (PCM16 RMS) is speech; the engine's silence is near zero. */
const VOICED_RMS = 300;
/** The agent is done talking (greeting and question) once it has been quiet this long. */
const AGENT_DONE_QUIET_MS = 1_500;
/** An agent that says nothing at all is spoken to anyway after this long. */
const SPEAK_ANYWAY_AFTER_MS = 15_000;

export interface StreamedCall {
  /** What the agent said, at PHONE_SAMPLE_RATE, with the pauses between its lines. */
  agentAudio: Int16Array;
  /** Whether the engine ended the call (the flow said goodbye) or this side gave up after `maxMs`. */
  endedBy: 'engine' | 'timeout';
}

/**
 * Runs the call on the stream at `url`: waits for the agent to finish speaking, says `speech` (PHONE_SAMPLE_RATE),
 * and listens until the engine ends the call or `maxMs` has passed.
 */
export function runMediaStreamCall(url: string, speech: Int16Array, maxMs: number): Promise<StreamedCall> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const streamSid = `MZ${randomBytes(16).toString('hex')}`;
    const agentFrames: Int16Array[] = [];
    let recordedSamples = 0;
    let startedAt = 0;
    let lastVoicedAt = 0;
    let heardAgent = false;
    let speechAt: number | undefined; // sample offset into `speech` while speaking
    let spoke = false;
    let sent = 0;
    let sequence = 0;
    let pacer: NodeJS.Timeout | undefined;
    let giveUp: NodeJS.Timeout | undefined;
    let endedBy: StreamedCall['endedBy'] = 'engine';

    const send = (message: Record<string, unknown>) =>
      ws.send(JSON.stringify({ ...message, sequenceNumber: String(++sequence), streamSid }));

    const nextFrame = (): Uint8Array => {
      if (speechAt === undefined || speechAt >= speech.length) return Buffer.alloc(FRAME_SAMPLES, ULAW_SILENCE);
      const frame = new Int16Array(FRAME_SAMPLES);
      frame.set(speech.subarray(speechAt, speechAt + FRAME_SAMPLES));
      speechAt += FRAME_SAMPLES;
      return encodeMulaw(frame);
    };

    // Sends every frame that is due by the wall clock, so a late timer catches up instead of slowing the caller down.
    const pace = () => {
      const now = Date.now();
      const quietFor = now - lastVoicedAt;
      if (!spoke && ((heardAgent && quietFor > AGENT_DONE_QUIET_MS) || now - startedAt > SPEAK_ANYWAY_AFTER_MS)) {
        spoke = true;
        speechAt = 0;
      }
      const due = Math.floor((now - startedAt) / FRAME_MS);
      for (; sent < due; sent++) {
        send({
          event: 'media',
          media: {
            track: 'inbound',
            chunk: String(sent + 1),
            timestamp: String(sent * FRAME_MS),
            payload: Buffer.from(nextFrame()).toString('base64'),
          },
        });
      }
    };

    const hearAgent = (payload: string) => {
      const samples = decodeMulaw(Buffer.from(payload, 'base64'));
      // Keep the agent's pauses: pad with silence up to where the wall clock says this audio belongs.
      const dueSamples = Math.floor(((Date.now() - startedAt) * PHONE_SAMPLE_RATE) / 1000) - samples.length;
      if (dueSamples - recordedSamples > FRAME_SAMPLES * 5) {
        agentFrames.push(new Int16Array(dueSamples - recordedSamples));
        recordedSamples = dueSamples;
      }
      agentFrames.push(samples);
      recordedSamples += samples.length;
      if (rms(samples) > VOICED_RMS) {
        heardAgent = true;
        lastVoicedAt = Date.now();
      }
    };

    ws.on('open', () => {
      startedAt = Date.now();
      lastVoicedAt = startedAt;
      ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      send({
        event: 'start',
        start: {
          accountSid: 'parley-call',
          streamSid,
          callSid: streamSid,
          tracks: ['inbound'],
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: PHONE_SAMPLE_RATE, channels: 1 },
          customParameters: {},
        },
      });
      pacer = setInterval(pace, FRAME_MS);
      giveUp = setTimeout(() => {
        endedBy = 'timeout';
        send({ event: 'stop', stop: { accountSid: 'parley-call', callSid: streamSid } });
        ws.close(1000, 'parley call: time is up');
      }, maxMs);
    });
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event?: string; media?: { payload?: string }; mark?: unknown };
      if (message.event === 'media' && message.media?.payload) hearAgent(message.media.payload);
      // The engine learns that its audio has played from the echoed mark, as from a carrier.
      else if (message.event === 'mark') send({ event: 'mark', mark: message.mark });
    });
    ws.on('error', (error) => {
      clearInterval(pacer);
      clearTimeout(giveUp);
      reject(new CliError(`the call's media stream failed: ${error.message}`));
    });
    ws.on('close', (code, reason) => {
      clearInterval(pacer);
      clearTimeout(giveUp);
      // 1008: the engine refused the stream (its one-use URL already used, or expired).
      if (code === 1008) return reject(new CliError(`the engine refused the media stream: ${String(reason)}`));
      const agentAudio = new Int16Array(recordedSamples);
      let offset = 0;
      for (const frame of agentFrames) {
        agentAudio.set(frame, offset);
        offset += frame.length;
      }
      resolve({ agentAudio, endedBy });
    });
  });
}
