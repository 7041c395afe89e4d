/**
 * POST /voice/session and POST /voice/callback: place (or schedule) a phone call (spec document 2, "Calls: placing
 * and call records"; docs/architecture.md §3). Scope calls:create; rate limited per calling host with the other call placements.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { CallPlacement } from '../../../calls/launch/placement.ts';
import * as schemas from './schemas.ts';

export default async function voiceSessionPlacementRoutes(app: FastifyInstance, options: { placement: CallPlacement }) {
  app.post<{ Body: schemas.PlaceCallBody }>(
    '/voice/session',
    { schema: schemas.placeCall, config: { scope: 'calls:create' }, preHandler: [app.limit('callPlacement', 'ip')] },
    async (request, reply) => {
      const placed = await options.placement.placeOutbound(principalOf(request), request.body);
      const message = placed.status === 'scheduled' ? 'Call scheduled' : 'Call initiated';
      return reply.code(201).send(ok(placed, message));
    },
  );

  app.post<{ Body: schemas.CallbackBody }>(
    '/voice/callback',
    {
      schema: schemas.placeCallback,
      config: { scope: 'calls:create' },
      preHandler: [app.limit('callPlacement', 'ip')],
    },
    async (request, reply) => {
      const placed = await options.placement.placeCallback(principalOf(request), request.body);
      return reply.code(201).send(ok(placed, placed.message));
    },
  );
}
