/**
 * /voice-sessions: call records (spec document 2, "Calls: placing and call records"). Reading needs calls:read;
 * creating and ending a record, calls:create. Creating is rate limited per calling host (spec document 3, Limits).
 * GET /voice-sessions/{sessionId}/recording serves the engine's recording of the call (recording.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import * as schemas from './schemas.ts';
import { VoiceSessionService } from '../../../calls/sessions/session-service.ts';
import { recordingRoute, type RecordingRouteOptions } from './recording.ts';

export default async function voiceSessionRoutes(app: FastifyInstance, options: Partial<RecordingRouteOptions> = {}) {
  const calls = new VoiceSessionService(app.sql, app.bus);

  app.post<{ Body: schemas.CreateCallBody }>(
    '/voice-sessions',
    { schema: schemas.createCall, config: { scope: 'calls:create' }, preHandler: [app.limit('callPlacement', 'ip')] },
    async (request, reply) =>
      reply.code(201).send(ok(await calls.create(principalOf(request), request.body), 'Call record created')),
  );

  app.get<{ Querystring: schemas.StatsQuery }>(
    '/voice-sessions/stats',
    // Spec document 3: another organisation's orgId is a 404 here, not a 403.
    { schema: schemas.stats, config: { scope: 'calls:read', foreignOrganisation: 'not-found' } },
    async (request) => ok(await calls.stats(principalOf(request), request.query)),
  );

  app.get<{ Params: { orgId: string }; Querystring: schemas.ListCallsQuery }>(
    '/voice-sessions/organization/:orgId',
    { schema: schemas.listCalls, config: { scope: 'calls:read' } },
    async (request) => ok(await calls.list(principalOf(request), request.query)),
  );

  app.get<{ Params: { roomName: string } }>(
    '/voice-sessions/room/:roomName',
    { schema: schemas.getCallByRoom, config: { scope: 'calls:read' } },
    async (request) => ok(await calls.getByRoom(principalOf(request), request.params.roomName)),
  );

  app.post<{ Params: { roomName: string }; Body: schemas.EndCallBody | undefined }>(
    '/voice-sessions/room/:roomName/end',
    {
      schema: schemas.endCall,
      config: { scope: 'calls:create' },
      // The body is optional: a POST with none means `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const { call, ended } = await calls.end(principalOf(request), request.params.roomName, request.body ?? {});
      return ok(call, ended ? 'Call ended' : 'Call had already ended');
    },
  );

  app.get<{ Params: { sessionId: string } }>(
    '/voice-sessions/:sessionId',
    { schema: schemas.getCall, config: { scope: 'calls:read' } },
    async (request) => ok(await calls.get(principalOf(request), request.params.sessionId)),
  );

  recordingRoute(app, { recordingsDir: options.recordingsDir, recordingsBucket: options.recordingsBucket });
}
