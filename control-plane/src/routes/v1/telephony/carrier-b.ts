/**
 * /telephony/carrier-b/…: the organisation's own carrier-b account (spec document 2). All four routes need
 * numbers:write and self-serve telephony; sync also counts against the shared sensitive-route limit.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { TelephonyCarrierModule, TelephonyContext } from '../../../telephony/context.ts';
import * as schemas from './carrier-b-schemas.ts';
import { carrierBModule } from '../../../carriers/carriers.ts';

async function carrierBRoutes(app: FastifyInstance, options: { telephony: TelephonyContext }) {
  const { telephony } = options;
  const carrierB = carrierBModule.numbers(telephony);
  const config = { scope: 'numbers:write' } as const;

  app.post<{ Body: schemas.ConnectBody }>(
    '/telephony/carrier-b/connect',
    { schema: schemas.connect, config, preHandler: telephony.limits.route },
    async (request, reply) =>
      reply
        .code(201)
        .send(ok(await carrierB.connect(principalOf(request), request.body), 'carrier-b account connected')),
  );

  app.post<{ Body: schemas.SearchBody }>(
    '/telephony/carrier-b/search',
    { schema: schemas.search, config, preHandler: telephony.limits.route },
    async (request) => ok(await carrierB.search(principalOf(request), request.body)),
  );

  app.post<{ Body: schemas.PurchaseBody }>(
    '/telephony/carrier-b/purchase',
    { schema: schemas.purchase, config, preHandler: telephony.limits.route },
    async (request, reply) =>
      reply.code(201).send(ok(await carrierB.purchase(principalOf(request), request.body), 'Number purchased')),
  );

  app.post<{ Body: schemas.SyncBody }>(
    '/telephony/carrier-b/sync',
    { schema: schemas.sync, config, preHandler: telephony.limits.sync },
    async (request) => ok(await carrierB.sync(principalOf(request), request.body)),
  );
}

export const carrierB: TelephonyCarrierModule = {
  provider: carrierBModule.name,
  routes: carrierBRoutes,
  account: carrierBModule.account,
};
