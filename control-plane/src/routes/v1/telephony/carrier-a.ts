/**
 * /telephony/carrier-a/…: the organisation's own carrier-a account (spec document 2: connect and sync; search and
 * purchase are Parley's, for the MCP tools). Every route needs numbers:write and self-serve telephony; sync also
 * counts against the shared sensitive-route limit of the sync routes.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { TelephonyCarrierModule, TelephonyContext } from '../../../telephony/context.ts';
import * as schemas from './carrier-a-schemas.ts';
import { carrierAModule } from '../../../carriers/carriers.ts';
import { CarrierAPurchases } from '../../../carriers/carrier-a/purchases.ts';

async function carrierARoutes(app: FastifyInstance, options: { telephony: TelephonyContext }) {
  const { telephony } = options;
  const carrierA = carrierAModule.numbers(telephony);
  const purchases = new CarrierAPurchases(telephony);
  const config = { scope: 'numbers:write' } as const;

  app.post<{ Body: schemas.ConnectBody }>(
    '/telephony/carrier-a/connect',
    { schema: schemas.connect, config, preHandler: telephony.limits.route },
    async (request, reply) =>
      reply
        .code(201)
        .send(ok(await carrierA.connect(principalOf(request), request.body), 'carrier-a account connected')),
  );

  app.post<{ Body: schemas.SearchBody }>(
    '/telephony/carrier-a/search',
    { schema: schemas.search, config, preHandler: telephony.limits.route },
    async (request) => ok(await purchases.search(principalOf(request), request.body)),
  );

  app.post<{ Body: schemas.PurchaseBody }>(
    '/telephony/carrier-a/purchase',
    { schema: schemas.purchase, config, preHandler: telephony.limits.route },
    async (request, reply) =>
      reply.code(201).send(ok(await purchases.purchase(principalOf(request), request.body), 'Number purchased')),
  );

  app.post<{ Body: schemas.SyncBody }>(
    '/telephony/carrier-a/sync',
    { schema: schemas.sync, config, preHandler: telephony.limits.sync },
    async (request) => ok(await carrierA.sync(principalOf(request), request.body)),
  );
}

export const carrierA: TelephonyCarrierModule = {
  provider: carrierAModule.name,
  routes: carrierARoutes,
  account: carrierAModule.account,
};
