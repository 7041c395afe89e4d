/**
 * /telephony/carrier-a/…: the organisation's own carrier-a account (spec document 2). Both routes need numbers:write
 * and self-serve telephony; sync also counts against the shared sensitive-route limit of the sync routes.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { TelephonyCarrierModule, TelephonyContext } from '../../../telephony/context.ts';
import * as schemas from './carrier-a-schemas.ts';
import { carrierAModule } from '../../../carriers/carriers.ts';

async function carrierARoutes(app: FastifyInstance, options: { telephony: TelephonyContext }) {
  const { telephony } = options;
  const carrierA = carrierAModule.numbers(telephony);
  const config = { scope: 'numbers:write' } as const;

  app.post<{ Body: schemas.ConnectBody }>(
    '/telephony/carrier-a/connect',
    { schema: schemas.connect, config, preHandler: telephony.limits.route },
    async (request, reply) =>
      reply
        .code(201)
        .send(ok(await carrierA.connect(principalOf(request), request.body), 'carrier-a account connected')),
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
