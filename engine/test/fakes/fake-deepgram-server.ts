/**
 * A local contract fake of Deepgram's live streaming API (`wss://api.deepgram.com/v1/listen`). The handshake is
 * checked as Deepgram does — `Authorization: Token <key>` (401 with `{err_code, err_msg, request_id}` otherwise),
 * a known encoding with its sample rate, known models — and the recogniser is played by a loudness gate over the
 * binary audio: after voiced audio it sends interim `Results`, after `endpointingMs` of silence (or on `Finalize`,
 * or `CloseStream`) a final one with the utterance's start and duration, reading its words from a script. It
 * closes with 1011 NET-0001 when neither audio nor KeepAlive arrives for `idleTimeoutMs`, as Deepgram does.
 *
 *   const deepgram = await startFakeDeepgram({ apiKey: 'dg-key', transcripts: ['hello there'] });
 *   new DeepgramStt({ apiKey: 'dg-key', baseUrl: deepgram.baseUrl });
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { deferred, sendJson, startHttp } from './http-kit.ts';
import { rms, samplesFromBytes, VOICED_RMS } from './pcm-audio.ts';

/** The fake listens in 20 ms frames of 16 kHz PCM16, like the engine sends them. */
const FRAME_BYTES = 640;
const FRAME_MS = 20;
const ENCODINGS = new Set([
  'linear16',
  'linear32',
  'flac',
  'mulaw',
  'alaw',
  'amr-nb',
  'amr-wb',
  'opus',
  'ogg-opus',
  'speex',
  'g729',
]);
const BOOLEAN_PARAMS = ['interim_results', 'punctuate', 'smart_format', 'vad_events'];

export interface FakeDeepgramOptions {
  apiKey: string;
  /** The words of each utterance, in order; past the end, `utterance <n>`. */
  transcripts?: string[];
  /** Models that exist; default nova-3 and nova-2. */
  models?: readonly string[];
  /** Voiced audio between interim results, in ms. */
  interimEveryMs?: number;
  /** Silence after speech that ends an utterance (Deepgram's endpointing), in ms. */
  endpointingMs?: number;
  /** Close with 1011 NET-0001 after this long with neither audio nor KeepAlive, in ms (Deepgram: 10 s). */
  idleTimeoutMs?: number;
  /** Send each utterance as this many `is_final` segments, `speech_final` on the last only. */
  finalSegments?: number;
}

export interface FakeDeepgramConnection {
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  audioBytes: number;
  keepAlives: number;
  finalizes: number;
  closeStreamReceived: boolean;
  /** Every message the fake sent, in order. */
  sent: Record<string, unknown>[];
  /** Resolves when the socket is gone: who closed it, and the code. */
  closed: Promise<{ code: number; byServer: boolean }>;
  /** Closes from the server side, as Deepgram does on its own errors. */
  serverClose(code: number, reason: string): void;
}

export interface FakeDeepgram {
  /** `ws://127.0.0.1:<port>/v1`, what the client's `baseUrl` should be. */
  baseUrl: string;
  connections: FakeDeepgramConnection[];
  /** Refuses the next handshake with this status and Deepgram's error body. */
  refuseNext(status: number, errCode: string, errMsg: string): void;
  close(): Promise<void>;
}

export async function startFakeDeepgram(options: FakeDeepgramOptions): Promise<FakeDeepgram> {
  const models = options.models ?? ['nova-3', 'nova-2'];
  const transcripts = [...(options.transcripts ?? [])];
  let utterances = 0;
  const nextTranscript = (): string => transcripts.shift() ?? `utterance ${++utterances}`;
  const refusals: { status: number; errCode: string; errMsg: string }[] = [];
  const connections: FakeDeepgramConnection[] = [];
  const wss = new WebSocketServer({ noServer: true });
  const running = await startHttp((_req, res) =>
    sendJson(res, 405, { err_code: 'Bad Request', err_msg: 'websocket only' }),
  );

  running.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const refusal = refusals.shift() ?? handshakeProblem(req, url, options.apiKey, models);
    if (refusal !== undefined) {
      const body = JSON.stringify({ err_code: refusal.errCode, err_msg: refusal.errMsg, request_id: randomUUID() });
      socket.end(
        `HTTP/1.1 ${refusal.status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
          `connection: close\r\n\r\n${body}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      connections.push(listen(ws, req, url.searchParams, options, nextTranscript));
    });
  });

  return {
    baseUrl: `${running.origin.replace('http:', 'ws:')}/v1`,
    connections,
    refuseNext: (status, errCode, errMsg) => refusals.push({ status, errCode, errMsg }),
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await running.close();
    },
  };
}

/** What Deepgram would refuse in this handshake. */
function handshakeProblem(req: IncomingMessage, url: URL, apiKey: string, models: readonly string[]) {
  const auth = req.headers.authorization;
  if (url.pathname !== '/v1/listen')
    return { status: 404, errCode: 'NOT_FOUND', errMsg: `No such endpoint ${url.pathname}` };
  if (auth !== `Token ${apiKey}`) return { status: 401, errCode: 'INVALID_AUTH', errMsg: 'Invalid credentials.' };
  const q = url.searchParams;
  const bad = (errMsg: string) => ({ status: 400, errCode: 'Bad Request', errMsg });
  const encoding = q.get('encoding');
  if (encoding !== null && !ENCODINGS.has(encoding)) return bad(`Invalid encoding: ${encoding}`);
  if (encoding !== null && q.get('sample_rate') === null) return bad('sample_rate is required when encoding is set');
  for (const name of BOOLEAN_PARAMS) {
    const value = q.get(name);
    if (value !== null && value !== 'true' && value !== 'false') return bad(`Invalid ${name}: ${value}`);
  }
  const model = q.get('model') ?? 'base';
  if (!models.includes(model)) return bad('No such model/language/tier combination found.');
  if (encoding !== 'linear16' || q.get('sample_rate') !== '16000' || (q.get('channels') ?? '1') !== '1') {
    return bad('the fake decodes only linear16, 16000 Hz, 1 channel');
  }
  return undefined;
}

/** Plays Deepgram for one socket. */
function listen(
  ws: WebSocket,
  req: IncomingMessage,
  query: URLSearchParams,
  options: FakeDeepgramOptions,
  nextTranscript: () => string,
): FakeDeepgramConnection {
  const closed = deferred<{ code: number; byServer: boolean }>();
  let closingByServer = false;
  const interims = query.get('interim_results') === 'true';
  const interimEveryMs = options.interimEveryMs ?? 200;
  const endpointingMs = options.endpointingMs ?? 300;
  const idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
  const connection: FakeDeepgramConnection = {
    query,
    headers: req.headers,
    audioBytes: 0,
    keepAlives: 0,
    finalizes: 0,
    closeStreamReceived: false,
    sent: [],
    closed: closed.promise,
    serverClose: (code, reason) => {
      closingByServer = true;
      ws.close(code, reason);
    },
  };
  const requestId = randomUUID();
  let carry = Buffer.alloc(0);
  let streamMs = 0;
  /** The utterance being heard: where it started, how much of it was voiced, when the voice last stopped. */
  let utterance:
    | { startMs: number; voicedMs: number; endMs: number; words: string[]; interimsSent: number }
    | undefined;
  let silenceMs = 0;

  const send = (message: Record<string, unknown>): void => {
    connection.sent.push(message);
    ws.send(JSON.stringify(message));
  };
  const results = (words: string[], startMs: number, endMs: number, flags: Record<string, boolean>): void =>
    send({
      type: 'Results',
      channel_index: [0, 1],
      duration: (endMs - startMs) / 1000,
      start: startMs / 1000,
      is_final: false,
      speech_final: false,
      from_finalize: false,
      ...flags,
      channel: { alternatives: [{ transcript: words.join(' '), confidence: 0.97, words: [] }] },
      metadata: {
        request_id: requestId,
        model_info: { name: query.get('model'), version: 'fake', arch: query.get('model') },
        model_uuid: randomUUID(),
      },
    });
  const settle = (flags: Record<string, boolean>): void => {
    if (utterance === undefined) return;
    const { words, startMs, endMs } = utterance;
    const segments = Math.max(1, Math.min(options.finalSegments ?? 1, words.length));
    const per = Math.ceil(words.length / segments);
    for (let i = 0; i < segments; i++) {
      const from = startMs + Math.round(((endMs - startMs) * i) / segments);
      const to = startMs + Math.round(((endMs - startMs) * (i + 1)) / segments);
      const last = i === segments - 1;
      results(words.slice(i * per, (i + 1) * per), from, to, { is_final: true, ...(last ? flags : {}) });
    }
    utterance = undefined;
  };

  let idle = setTimeout(() => connection.serverClose(1011, 'NET-0001'), idleTimeoutMs);
  const active = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => connection.serverClose(1011, 'NET-0001'), idleTimeoutMs);
  };

  ws.on('message', (data: Buffer, isBinary) => {
    if (isBinary) {
      active();
      connection.audioBytes += data.length;
      carry = Buffer.concat([carry, data]);
      while (carry.length >= FRAME_BYTES) {
        const voiced = rms(samplesFromBytes(carry.subarray(0, FRAME_BYTES))) > VOICED_RMS;
        carry = carry.subarray(FRAME_BYTES);
        if (voiced) {
          utterance ??= {
            startMs: streamMs,
            voicedMs: 0,
            endMs: streamMs,
            words: nextTranscript().split(' '),
            interimsSent: 0,
          };
          utterance.voicedMs += FRAME_MS;
          utterance.endMs = streamMs + FRAME_MS;
          silenceMs = 0;
          if (interims && utterance.voicedMs >= (utterance.interimsSent + 1) * interimEveryMs) {
            utterance.interimsSent += 1;
            const shown = Math.min(utterance.words.length, utterance.interimsSent);
            results(utterance.words.slice(0, shown), utterance.startMs, utterance.endMs, {});
          }
        } else if (utterance !== undefined) {
          silenceMs += FRAME_MS;
          if (silenceMs >= endpointingMs) settle({ speech_final: true });
        }
        streamMs += FRAME_MS;
      }
      return;
    }
    let message: { type?: unknown };
    try {
      message = JSON.parse(data.toString('utf8')) as { type?: unknown };
    } catch {
      connection.serverClose(1008, 'DATA-0000');
      return;
    }
    if (message.type === 'KeepAlive') {
      active();
      connection.keepAlives += 1;
    } else if (message.type === 'Finalize') {
      connection.finalizes += 1;
      settle({ from_finalize: true });
    } else if (message.type === 'CloseStream') {
      connection.closeStreamReceived = true;
      settle({ speech_final: true });
      send({
        type: 'Metadata',
        transaction_key: 'deprecated',
        request_id: requestId,
        created: new Date().toISOString(),
        duration: streamMs / 1000,
        channels: 1,
      });
      connection.serverClose(1000, '');
    } else {
      connection.serverClose(1008, 'DATA-0000');
    }
  });
  ws.on('close', (code) => {
    clearTimeout(idle);
    closed.resolve({ code, byServer: closingByServer });
  });
  return connection;
}
