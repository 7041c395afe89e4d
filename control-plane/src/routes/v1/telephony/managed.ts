/**
 * Managed numbers (spec document 2): the status read (numbers:read), and — not in the spec, designed here — the
 * numbers on offer, renting one and giving it back (telephony/managed-rentals.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { TelephonyContext } from '../../../telephony/context.ts';
import * as schemas from './managed-schemas.ts';
import { managedStatus } from '../../../telephony/managed.ts';
import { releaseManagedNumber, rentManagedNumber, searchManagedNumbers } from '../../../telephony/managed-rentals.ts';

export default async function managedRoutes(app: FastifyInstance, options: { telephony: TelephonyContext }) {
  const { telephony } = options;
  const limits = telephony.limits.route;
  app.get<{ Params: { organisationId: string } }>(
    '/telephony/managed/:organisationId',
    { schema: schemas.managedStatus, config: { scope: 'numbers:read' }, preHandler: limits },
    async (request) => ok(await managedStatus(telephony, principalOf(request))),
  );
  app.get<{ Params: { organisationId: string }; Querystring: schemas.AvailableQuery }>(
    '/telephony/managed/:organisationId/available',
    { schema: schemas.availableNumbers, config: { scope: 'numbers:read' }, preHandler: limits },
    async (request) => ok(await searchManagedNumbers(telephony, principalOf(request), request.query)),
  );
  app.post<{ Params: { organisationId: string }; Body: schemas.RentBody }>(
    '/telephony/managed/:organisationId/numbers',
    { schema: schemas.rentNumber, config: { scope: 'numbers:write' }, preHandler: limits },
    async (request, reply) =>
      reply.code(201).send(ok(await rentManagedNumber(telephony, principalOf(request), request.body.phoneNumber))),
  );
  app.delete<{ Params: { organisationId: string; id: string } }>(
    '/telephony/managed/:organisationId/numbers/:id',
    { schema: schemas.releaseNumber, config: { scope: 'numbers:write' }, preHandler: limits },
    async (request) => ok(await releaseManagedNumber(telephony, principalOf(request), request.params.id)),
  );
}
