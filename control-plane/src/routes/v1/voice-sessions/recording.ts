/**
 * GET /voice-sessions/{sessionId}/recording (spec document 2): the call's recording as the engine wrote it (stereo
 * Ogg Opus, caller left, agent right), streamed from where the engine stored it — the recordings folder, or the
 * recordings bucket (call_records.recording_path `s3://<bucket>/<key>`, @parley/engine/storage) — with single byte
 * ranges: 206 with Content-Range for a satisfiable range, 416 with a Content-Range giving the size for one that is
 * not, the same bytes and headers from either store. As the spec says, a call that does not exist or belongs to
 * another organisation is a 403 here; 404 means no recording yet; a store that fails is a 500.
 */
import { RecordingStores, type S3BucketConfig } from '@parley/engine/storage';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { findCallById } from '../../../calls/repository/call-repository.ts';
import { ApiError } from '../../../errors.ts';
import { authErrors, errors } from '../../../http/schemas.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import { SessionParams } from './schemas.ts';

/** What the engine records (engine/src/storage/call-recorder.ts RECORDING_FORMAT). */
const RECORDING_CONTENT_TYPE = 'audio/ogg';

export interface RecordingRouteOptions {
  /** The engine's recordings folder (EngineConfig.recordingsDir); unset: no local recording can be served (404). */
  recordingsDir: string | undefined;
  /** The recordings bucket (EngineConfig.recordingsBucket); unset: no bucket recording can be served (404). */
  recordingsBucket?: S3BucketConfig;
}

export function recordingRoute(app: FastifyInstance, options: RecordingRouteOptions): void {
  const stores = new RecordingStores({
    recordingsDir: options.recordingsDir,
    recordingsBucket: options.recordingsBucket,
  });
  app.get<{ Params: { sessionId: string } }>(
    '/voice-sessions/:sessionId/recording',
    {
      schema: {
        tags: ['calls'],
        summary: "The call's recording (Ogg Opus, stereo: caller left, agent right), with Range support",
        description:
          'Send `Range: bytes=<start>-<end>` (or `bytes=<start>-`, `bytes=-<suffix>`) for part of it: 206 with ' +
          "Content-Range; an unsatisfiable range is 416. 403 when the call does not exist or is another organisation's, " +
          '404 before the recording exists, 500 when its storage fails. The engine stores recordings in ' +
          '`$PARLEY_DATA_DIR/recordings` or, with `PARLEY_RECORDINGS_BUCKET=s3://<bucket>/<prefix>` (and `PARLEY_S3_ENDPOINT`, ' +
          '`PARLEY_S3_REGION`, `PARLEY_S3_ACCESS_KEY_ID`, `PARLEY_S3_SECRET_ACCESS_KEY`, `PARLEY_S3_FORCE_PATH_STYLE`), in an ' +
          'S3-compatible bucket under `<prefix>/<organisationId>/<callId>.ogg`; either way this route streams it, forwarding ' +
          'the range to the bucket, with the same answers.',
        params: SessionParams,
        response: {
          200: Type.Unsafe<Buffer>({ description: 'audio/ogg', type: 'string', format: 'binary' }),
          206: Type.Unsafe<Buffer>({ description: 'audio/ogg, the requested bytes', type: 'string', format: 'binary' }),
          ...authErrors,
          ...errors(404),
          416: Type.Ref('ErrorBody'),
          500: Type.Ref('ErrorBody'),
        },
      },
      config: { scope: 'recordings:read' },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const call = await findCallById(app.sql, principal.organisationId, request.params.sessionId);
      if (!call) throw new ApiError('forbidden', 'No such call in your organisation');
      const located = call.recording_path ? stores.locate(call.recording_path) : undefined;
      const size = located ? (await storeCall(() => located.store.head(located.key)))?.size : undefined;
      if (!located || size === undefined) throw new ApiError('not_found', 'This call has no recording yet');

      void reply.header('accept-ranges', 'bytes');
      const range = parseRange(request.headers.range, size);
      if (range === 'unsatisfiable') {
        return reply
          .code(416)
          .header('content-range', `bytes */${size}`)
          .send({
            success: false,
            message: `The range is outside the recording's ${size} bytes`,
            code: 'range_not_satisfiable',
          });
      }
      // The range was read here against the size, so a bucket is asked for exactly the bytes a file would give.
      const object = await storeCall(() => located.store.get(located.key, range));
      if (!object) throw new ApiError('not_found', 'This call has no recording yet');
      void reply.type(RECORDING_CONTENT_TYPE);
      if (!range) return reply.header('content-length', object.size).send(object.body);
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${object.size}`)
        .header('content-length', range.end - range.start + 1)
        .send(object.body);
    },
  );
}

/** A store's failure (a bucket down or refusing our key) is a 500, as the spec says; its detail goes to the log only. */
async function storeCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new ApiError('internal', 'The recording could not be fetched from storage', { cause: error });
  }
}

/**
 * One byte range of RFC 9110 §14.1.2 (`bytes=a-b`, `bytes=a-`, `bytes=-n`), clamped to the file. No header, another
 * unit or several ranges: the whole file (a server may ignore Range). A range that starts past the end: unsatisfiable.
 */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
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
