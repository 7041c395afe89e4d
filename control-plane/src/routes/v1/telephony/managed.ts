/** GET /telephony/managed/{organisationId}: the managed-numbers status read (numbers:read; spec document 2). */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { TelephonyContext } from '../../../telephony/context.ts';
import * as schemas from './managed-schemas.ts';
import { managedStatus } from '../../../telephony/managed.ts';

export default async function managedRoutes(app: FastifyInstance, options: { telephony: TelephonyContext }) {
  const { telephony } = options;
  app.get<{ Params: { organisationId: string } }>(
    '/telephony/managed/:organisationId',
    { schema: schemas.managedStatus, config: { scope: 'numbers:read' }, preHandler: telephony.limits.route },
    async (request) => ok(await managedStatus(telephony, principalOf(request))),
  );
}
