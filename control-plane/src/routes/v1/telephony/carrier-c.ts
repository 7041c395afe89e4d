/**
 * /telephony/carrier-c/…: the organisation's own carrier-c account (spec document 2). Both routes need
 * numbers:write, self-serve telephony and a funded wallet; connect counts against the stricter sensitive-route
 * limit, sync against the shared one of the sync routes.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { TelephonyCarrierModule, TelephonyContext } from '../../../telephony/context.ts';
import * as schemas from './carrier-c-schemas.ts';
import { carrierCModule } from '../../../carriers/carriers.ts';

async function carrierCRoutes(app: FastifyInstance, options: { telephony: TelephonyContext }) {
  const { telephony } = options;
  const carrierC = carrierCModule.numbers(telephony);
  const config = { scope: 'numbers:write' } as const;

  app.post<{ Body: schemas.ConnectBody }>(
    '/telephony/carrier-c/connect',
    { schema: schemas.connect, config, preHandler: telephony.limits.strict },
    async (request, reply) =>
      reply
        .code(201)
        .send(ok(await carrierC.connect(principalOf(request), request.body), 'carrier-c account connected')),
  );

  app.post<{ Body: schemas.SyncBody }>(
    '/telephony/carrier-c/sync',
    { schema: schemas.sync, config, preHandler: telephony.limits.sync },
    async (request) => ok(await carrierC.sync(principalOf(request), request.body)),
  );
}

export const carrierC: TelephonyCarrierModule = {
  provider: carrierCModule.name,
  routes: carrierCRoutes,
  account: carrierCModule.account,
};
