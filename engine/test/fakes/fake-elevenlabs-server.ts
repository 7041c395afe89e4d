/**
 * A local contract fake of ElevenLabs' text-to-speech API: `POST /v1/text-to-speech/{voice_id}/stream` and
 * `GET /v1/voices`. It authenticates with `xi-api-key` (401 with ElevenLabs' `{detail: {status, message}}`
 * otherwise), refuses unknown voices, models, output formats and out-of-range voice settings as ElevenLabs does,
 * and streams real PCM at the output format's rate: a tone whose length follows the text and the speed, in
 * odd-sized pieces.
 *
 *   const eleven = await startFakeElevenLabs({ apiKey: 'xi-key' });
 *   new ElevenLabsTts({ apiKey: 'xi-key', baseUrl: eleven.baseUrl });
 */
import type { ServerResponse } from 'node:http';
import { deferred, readBody, sendJson, startHttp, writePaced, type StreamOutcome } from './http-kit.ts';
import { bytesFromSamples, tone } from './pcm-audio.ts';

/** Speech length per character at speed 1, in ms (~14 characters a second). */
export const FAKE_ELEVENLABS_MS_PER_CHAR = 70;
const PIECE_BYTES = 3_201;
const MODELS = ['eleven_flash_v2_5', 'eleven_turbo_v2_5', 'eleven_multilingual_v2', 'eleven_v3'];
const OUTPUT_FORMATS =
  /^(mp3_(22050_32|44100_(32|64|96|128|192))|pcm_(8000|16000|22050|24000|44100|48000)|ulaw_8000|alaw_8000|opus_48000_(32|64|96|128|192))$/;

export const FAKE_ELEVENLABS_VOICES = [
  {
    voice_id: '21m00Tcm4TlvDq8ikWAM',
    name: 'Rachel',
    category: 'premade',
    labels: { accent: 'american', gender: 'female', age: 'young', use_case: 'narration' },
  },
  {
    voice_id: 'pNInz6obpgDQGcFmaJgB',
    name: 'Adam',
    category: 'premade',
    labels: { accent: 'american', gender: 'male', age: 'middle aged' },
  },
  {
    voice_id: 'clonedHindi000000001',
    name: 'Asha',
    category: 'cloned',
    labels: { gender: 'female' },
    verified_languages: [{ language: 'hi', locale: 'hi-IN' }],
  },
];

export interface ElevenLabsScript {
  status?: number;
  chunkDelayMs?: number;
  stallAfterChunks?: number;
  dropAfterChunks?: number;
}

export interface RecordedSpeechRequest {
  voiceId: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  outcome: Promise<StreamOutcome>;
}

export interface FakeElevenLabs {
  /** `http://127.0.0.1:<port>`, what the client's `baseUrl` should be. */
  baseUrl: string;
  requests: RecordedSpeechRequest[];
  enqueue(...scripts: ElevenLabsScript[]): void;
  close(): Promise<void>;
}

function detail(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { detail: { status: code, message } });
}

export async function startFakeElevenLabs(options: { apiKey: string }): Promise<FakeElevenLabs> {
  const requests: RecordedSpeechRequest[] = [];
  const scripts: ElevenLabsScript[] = [];
  const running = await startHttp(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const key = req.headers['xi-api-key'];
    if (key === undefined)
      return detail(
        res,
        401,
        'needs_authorization',
        'Neither authorization header nor xi-api-key received, please provide one.',
      );
    if (key !== options.apiKey) return detail(res, 401, 'invalid_api_key', 'Invalid API key');
    if (req.method === 'GET' && url.pathname === '/v1/voices')
      return sendJson(res, 200, { voices: FAKE_ELEVENLABS_VOICES });
    const match = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(url.pathname);
    if (req.method !== 'POST' || match === null) return sendJson(res, 404, { detail: 'Not Found' });
    const voiceId = decodeURIComponent(match[1] ?? '');
    const format = url.searchParams.get('output_format') ?? 'mp3_44100_128';
    if (!OUTPUT_FORMATS.test(format)) {
      return sendJson(res, 422, {
        detail: [{ loc: ['query', 'output_format'], msg: `unsupported output format ${format}`, type: 'value_error' }],
      });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse((await readBody(req)).toString('utf8')) as Record<string, unknown>;
    } catch {
      return sendJson(res, 400, {
        detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'value_error.jsondecode' }],
      });
    }
    if (typeof body.text !== 'string')
      return sendJson(res, 422, {
        detail: [{ loc: ['body', 'text'], msg: 'field required', type: 'value_error.missing' }],
      });
    if (!FAKE_ELEVENLABS_VOICES.some((v) => v.voice_id === voiceId))
      return detail(res, 404, 'voice_not_found', `A voice with the voice_id ${voiceId} was not found.`);
    if (body.model_id !== undefined && !MODELS.includes(String(body.model_id)))
      return detail(res, 400, 'model_not_found', `Model ${String(body.model_id)} does not exist.`);
    const settings = (body.voice_settings ?? {}) as Record<string, unknown>;
    const speed = settings.speed ?? 1;
    if (typeof speed !== 'number' || speed < 0.7 || speed > 1.2)
      return detail(res, 400, 'invalid_voice_settings', 'speed must be between 0.7 and 1.2');
    for (const name of ['stability', 'similarity_boost', 'style'] as const) {
      const value = settings[name];
      if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 1))
        return detail(res, 400, 'invalid_voice_settings', `${name} must be between 0 and 1`);
    }
    if (!format.startsWith('pcm_'))
      return detail(res, 400, 'unsupported_by_fake', `the fake produces pcm only, not ${format}`);

    const outcome = deferred<StreamOutcome>();
    requests.push({ voiceId, query: url.searchParams, headers: req.headers, body, outcome: outcome.promise });
    const script = scripts.shift() ?? {};
    if (script.status !== undefined) {
      detail(res, script.status, 'scripted', `scripted ${script.status}`);
      outcome.resolve({ clientClosedEarly: false });
      return;
    }
    const rate = Number(format.slice('pcm_'.length));
    const audio = bytesFromSamples(tone(Math.round((body.text.length * FAKE_ELEVENLABS_MS_PER_CHAR) / speed), rate));
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < audio.length; at += PIECE_BYTES) pieces.push(audio.subarray(at, at + PIECE_BYTES));
    res.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
    outcome.resolve(
      await writePaced(req, res, pieces, {
        delayMs: script.chunkDelayMs,
        stallAfter: script.stallAfterChunks,
        dropAfter: script.dropAfterChunks,
      }),
    );
  });
  return {
    baseUrl: running.origin,
    requests,
    enqueue: (...more) => scripts.push(...more),
    close: running.close,
  };
}
