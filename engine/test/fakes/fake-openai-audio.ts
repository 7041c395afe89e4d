/**
 * `POST /v1/audio/transcriptions` and `POST /v1/audio/speech` of the fake OpenAI-compatible server.
 * Transcriptions parses the multipart form as OpenAI does, insists on a real WAV (checked chunk by chunk), records
 * it for the test, and answers a scripted transcript. Speech answers real PCM: a tone whose length follows the
 * input text (and the speed), streamed in odd-sized pieces so a client that assumes whole samples per chunk fails.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { openAiError } from './fake-openai-chat.ts';
import { deferred, sendJson, writePaced, type StreamOutcome } from './http-kit.ts';
import { bytesFromSamples, parseWav, tone, type ParsedWav } from './pcm-audio.ts';

/** Synthesised speech length per character of input at speed 1, in ms (~14 characters a second). */
export const FAKE_SPEECH_MS_PER_CHAR = 70;
/** OpenAI's `pcm` format rate, in Hz. */
export const FAKE_SPEECH_SAMPLE_RATE = 24_000;
/** Body pieces of the speech answer: odd on purpose, so samples straddle pieces. */
const SPEECH_PIECE_BYTES = 4_801;
const TRANSCRIPTION_FORMATS = new Set(['json', 'text', 'srt', 'verbose_json', 'vtt']);
const SPEECH_FORMATS = new Set(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);
export const OPENAI_VOICE_IDS = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'nova',
  'onyx',
  'sage',
  'shimmer',
  'verse',
];

export interface RecordedTranscription {
  model: string;
  language: string | undefined;
  prompt: string | undefined;
  responseFormat: string;
  filename: string;
  wav: ParsedWav;
}

/** What the next transcription answers: a transcript, or an OpenAI error. */
export type TranscriptionScript = { text: string; delayMs?: number } | { status: number; message?: string };

export class FakeTranscriptionsEndpoint {
  readonly requests: RecordedTranscription[] = [];
  readonly #scripts: TranscriptionScript[] = [];

  /** Queues answers. With the queue empty the answer is `heard <ms> ms` for the WAV's duration. */
  enqueue(...scripts: TranscriptionScript[]): this {
    this.#scripts.push(...scripts);
    return this;
  }

  async handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data')) return openAiError(res, 400, 'Expected multipart/form-data.', null);
    let form: FormData;
    try {
      form = await new Request('http://fake/', {
        method: 'POST',
        headers: { 'content-type': type },
        body: raw,
      }).formData();
    } catch {
      return openAiError(res, 400, 'Could not parse multipart form', null);
    }
    const file = form.get('file');
    const model = form.get('model');
    const responseFormat = stringField(form, 'response_format') ?? 'json';
    if (!(file instanceof Blob)) return openAiError(res, 400, "Invalid 'file': expected a file.", 'file');
    if (typeof model !== 'string' || model === '')
      return openAiError(res, 400, 'you must provide a model parameter', 'model');
    if (!TRANSCRIPTION_FORMATS.has(responseFormat))
      return openAiError(res, 400, `Invalid 'response_format'.`, 'response_format');
    const wav = parseWav(new Uint8Array(await file.arrayBuffer()));
    if ('error' in wav) return openAiError(res, 400, `Invalid file format (${wav.error}).`, 'file');
    if (wav.durationMs < 100) {
      return openAiError(
        res,
        400,
        'Audio file is too short. Minimum audio length is 0.1 seconds.',
        'file',
        'audio_too_short',
      );
    }
    const filename = file instanceof File ? file.name : '';
    this.requests.push({
      model,
      language: stringField(form, 'language'),
      prompt: stringField(form, 'prompt'),
      responseFormat,
      filename,
      wav,
    });

    const script = this.#scripts.shift() ?? { text: `heard ${Math.round(wav.durationMs)} ms` };
    if ('status' in script)
      return void sendJson(res, script.status, {
        error: {
          message: script.message ?? `scripted ${script.status}`,
          type: 'server_error',
          param: null,
          code: null,
        },
      });
    if (script.delayMs !== undefined) await sleep(script.delayMs);
    if (responseFormat === 'text') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(script.text);
      return;
    }
    sendJson(res, 200, { text: script.text });
  }
}

export interface RecordedSpeech {
  body: Record<string, unknown>;
  outcome: Promise<StreamOutcome>;
}

/** How the next speech answer misbehaves, if at all. */
export interface SpeechScript {
  status?: number;
  message?: string;
  chunkDelayMs?: number;
  stallAfterChunks?: number;
  dropAfterChunks?: number;
  /** Answer 200 with this content type and a JSON body instead of audio (a server ignoring response_format). */
  wrongContentType?: boolean;
}

export class FakeSpeechEndpoint {
  readonly requests: RecordedSpeech[] = [];
  readonly #scripts: SpeechScript[] = [];

  enqueue(...scripts: SpeechScript[]): this {
    this.#scripts.push(...scripts);
    return this;
  }

  async handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return openAiError(res, 400, 'We could not parse the JSON body of your request.', null);
    }
    const format = body.response_format ?? 'mp3';
    if (typeof body.model !== 'string' || body.model === '')
      return openAiError(res, 400, 'you must provide a model parameter', 'model');
    if (typeof body.input !== 'string' || body.input === '')
      return openAiError(res, 400, "Invalid 'input': string too short.", 'input');
    if (body.input.length > 4096) return openAiError(res, 400, "Invalid 'input': string too long.", 'input');
    if (typeof body.voice !== 'string' || !OPENAI_VOICE_IDS.includes(body.voice))
      return openAiError(res, 400, "Invalid value for 'voice'.", 'voice');
    if (typeof format !== 'string' || !SPEECH_FORMATS.has(format))
      return openAiError(res, 400, "Invalid value for 'response_format'.", 'response_format');
    if (format !== 'pcm')
      return openAiError(res, 400, `the fake server only produces pcm, not ${format}`, 'response_format');
    const speed = body.speed ?? 1;
    if (typeof speed !== 'number' || speed < 0.25 || speed > 4)
      return openAiError(res, 400, "Invalid 'speed': must be between 0.25 and 4.0.", 'speed');

    const outcome = deferred<StreamOutcome>();
    this.requests.push({ body, outcome: outcome.promise });
    const script = this.#scripts.shift() ?? {};
    if (script.status !== undefined) {
      sendJson(res, script.status, {
        error: {
          message: script.message ?? `scripted ${script.status}`,
          type: 'server_error',
          param: null,
          code: null,
        },
      });
      outcome.resolve({ clientClosedEarly: false });
      return;
    }
    if (script.wrongContentType === true) {
      sendJson(res, 200, { audio: 'not what you asked for' });
      outcome.resolve({ clientClosedEarly: false });
      return;
    }
    const audio = bytesFromSamples(tone(speechMs(body.input, speed), FAKE_SPEECH_SAMPLE_RATE));
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < audio.length; at += SPEECH_PIECE_BYTES)
      pieces.push(audio.subarray(at, at + SPEECH_PIECE_BYTES));
    res.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
    outcome.resolve(
      await writePaced(req, res, pieces, {
        delayMs: script.chunkDelayMs,
        stallAfter: script.stallAfterChunks,
        dropAfter: script.dropAfterChunks,
      }),
    );
  }
}

/** How long the fake's speech for `text` lasts at `speed`, in ms. */
export function speechMs(text: string, speed = 1): number {
  return Math.round((text.length * FAKE_SPEECH_MS_PER_CHAR) / speed);
}

function stringField(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === 'string' ? value : undefined;
}
