/**
 * The /telephony routes every carrier shares: the overview, the organisation's numbers, and routing a number's
 * inbound calls to an agent (assign, unassign), where a number may call and how many calls it may have live at once.
 * Reads need numbers:read, changes numbers:write.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { TelephonyContext } from '../../../telephony/context.ts';
import { telephonyOverview } from '../../../telephony/overview.ts';
import { listActiveNumbers, setCallingScope, setCallLimit } from '../../../telephony/phone-number-repository.ts';
import { notFound } from '../../../errors.ts';
import { NumberRouting } from '../../../telephony/routing.ts';
import * as schemas from './schemas.ts';

type OrganisationParams = { organisationId: string };
type NumberParams = { id: string };

export default async function numberRoutes(app: FastifyInstance, options: { telephony: TelephonyContext }) {
  const { telephony } = options;
  const routing = new NumberRouting(telephony);
  const preHandler = telephony.limits.route;

  app.get<{ Params: OrganisationParams }>(
    '/telephony/overview/:organisationId',
    { schema: schemas.overview, config: { scope: 'numbers:read' }, preHandler },
    async (request) => ok(await telephonyOverview(telephony, principalOf(request))),
  );

  app.get<{ Params: OrganisationParams }>(
    '/telephony/numbers/:organisationId',
    { schema: schemas.listNumbers, config: { scope: 'numbers:read' }, preHandler },
    async (request) => {
      const organisation = await telephony.organisation(telephony.sql, principalOf(request).organisationId);
      return ok(await listActiveNumbers(telephony.sql, organisation.id));
    },
  );

  app.put<{ Params: NumberParams; Body: schemas.AssignBody }>(
    '/telephony/numbers/:id/agent',
    { schema: schemas.assignAgent, config: { scope: 'numbers:write' }, preHandler },
    async (request) =>
      ok(
        await routing.assign(principalOf(request).organisationId, request.params.id, request.body.agentId),
        'Number assigned',
      ),
  );

  app.delete<{ Params: NumberParams; Querystring: schemas.UnassignQuery }>(
    '/telephony/numbers/:id/agent',
    { schema: schemas.unassignAgent, config: { scope: 'numbers:write' }, preHandler },
    async (request) =>
      ok(await routing.unassign(principalOf(request).organisationId, request.params.id), 'Number unassigned'),
  );

  app.put<{ Params: NumberParams; Body: schemas.CallingScopeBody }>(
    '/telephony/numbers/:id/calling-scope',
    { schema: schemas.setCallingScope, config: { scope: 'numbers:write' }, preHandler },
    async (request) => {
      const { callingScope, allowedCountries } = request.body;
      const scope = {
        callingScope,
        allowedCountries: callingScope === 'ALLOWED_COUNTRIES' ? (allowedCountries ?? []) : [],
      };
      const number = await setCallingScope(
        telephony.sql,
        principalOf(request).organisationId,
        request.params.id,
        scope,
      );
      if (!number) throw notFound('Phone number');
      return ok(number, 'Calling scope updated');
    },
  );

  app.put<{ Params: NumberParams; Body: schemas.CallLimitBody }>(
    '/telephony/numbers/:id/call-limit',
    { schema: schemas.setCallLimit, config: { scope: 'numbers:write' }, preHandler },
    async (request) => {
      const number = await setCallLimit(
        telephony.sql,
        principalOf(request).organisationId,
        request.params.id,
        request.body.maxConcurrentCalls,
      );
      if (!number) throw notFound('Phone number');
      return ok(number, 'Call limit updated');
    },
  );
}
