/**
 * GET /voice-sessions/{sessionId}/recording (spec document 2): the call's recording as the engine wrote it (stereo
 * Ogg Opus, caller left, agent right), streamed from the recordings folder with single byte ranges — 206 with
 * Content-Range for a satisfiable range, 416 with a Content-Range giving the size for one that is not. As the spec
 * says, a call that does not exist or belongs to another organisation is a 403 here; 404 means no recording yet.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../errors.ts';
import { authErrors, errors } from '../../../http/schemas.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { SessionParams } from './schemas.ts';

/** What the engine records (engine/src/session/call-recorder.ts RECORDING_FORMAT). */
const RECORDING_CONTENT_TYPE = 'audio/ogg';

export interface RecordingRouteOptions {
  /** The engine's recordings folder (EngineConfig.recordingsDir); unset: no recording can be served (404). */
  recordingsDir: string | undefined;
}

export function recordingRoute(app: FastifyInstance, options: RecordingRouteOptions): void {
  app.get<{ Params: { sessionId: string } }>('/voice-sessions/:sessionId/recording', {
    schema: {
      tags: ['calls'],
      summary: "The call's recording (Ogg Opus, stereo: caller left, agent right), with Range support",
      description: 'Send `Range: bytes=<start>-<end>` (or `bytes=<start>-`, `bytes=-<suffix>`) for part of it: 206 with '
        + 'Content-Range; an unsatisfiable range is 416. 403 when the call does not exist or is another organisation\'s, '
        + '404 before the recording exists.',
      params: SessionParams,
      response: {
        200: Type.Unsafe<Buffer>({ description: 'audio/ogg', type: 'string', format: 'binary' }),
        206: Type.Unsafe<Buffer>({ description: 'audio/ogg, the requested bytes', type: 'string', format: 'binary' }),
        ...authErrors,
        ...errors(404),
        416: Type.Ref('ErrorBody'),
      },
    },
    config: { scope: 'recordings:read' },
  }, async (request, reply) => {
    const principal = principalOf(request);
    const [call] = await app.sql<{ recording_path: string | null }[]>`
      select recording_path from call_records where id = ${request.params.sessionId} and organisation_id = ${principal.organisationId}`;
    if (!call) throw new ApiError('forbidden', 'No such call in your organisation');
    const file = call.recording_path && options.recordingsDir ? resolveInside(options.recordingsDir, call.recording_path) : undefined;
    const size = file ? await stat(file).then((s) => (s.isFile() ? s.size : undefined), () => undefined) : undefined;
    if (!file || size === undefined) throw new ApiError('not_found', 'This call has no recording yet');

    void reply.header('accept-ranges', 'bytes');
    const range = parseRange(request.headers.range, size);
    if (range === 'unsatisfiable') {
      return reply.code(416).header('content-range', `bytes */${size}`)
        .send({ success: false, message: `The range is outside the recording's ${size} bytes`, code: 'range_not_satisfiable' });
    }
    void reply.type(RECORDING_CONTENT_TYPE);
    if (!range) return reply.header('content-length', size).send(createReadStream(file));
    return reply.code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', range.end - range.start + 1)
      .send(createReadStream(file, { start: range.start, end: range.end }));
  });
}

/** `relative` inside `root`, or undefined when it would leave it (a recording path is written by an engine). */
function resolveInside(root: string, relative: string): string | undefined {
  const base = path.resolve(root);
  const full = path.resolve(base, relative);
  return full.startsWith(base + path.sep) ? full : undefined;
}

/**
 * One byte range of RFC 9110 §14.1.2 (`bytes=a-b`, `bytes=a-`, `bytes=-n`), clamped to the file. No header, another
 * unit or several ranges: the whole file (a server may ignore Range). A range that starts past the end: unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
