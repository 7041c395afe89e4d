/**
 * /telephony/carrier-d/…: India numbers through the India numbering partner (spec document 2). KYC, purchase and
 * renewal need numbers:write, the inventory numbers:read; all need India provisioning on the organisation.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { TelephonyCarrierModule, TelephonyContext } from '../../../telephony/context.ts';
import * as schemas from './carrier-d-schemas.ts';
import { carrierDModule } from '../../../carriers/carriers.ts';

async function carrierDRoutes(app: FastifyInstance, options: { telephony: TelephonyContext }) {
  const { telephony } = options;
  const carrierD = carrierDModule.numbers(telephony);
  const write = { scope: 'numbers:write' } as const;

  app.post<{ Params: schemas.KycParams; Body: schemas.KycBody }>(
    '/telephony/carrier-d/kyc/:step',
    { schema: schemas.kyc, config: write, preHandler: telephony.limits.route },
    async (request) => ok(await carrierD.kyc(principalOf(request), request.params.step, request.body)),
  );

  app.get<{ Params: { organisationId: string }; Querystring: schemas.DidsQuery }>(
    '/telephony/carrier-d/dids/:organisationId',
    { schema: schemas.dids, config: { scope: 'numbers:read' }, preHandler: telephony.limits.route },
    async (request) => ok(await carrierD.dids(principalOf(request), request.query)),
  );

  app.post<{ Body: schemas.PurchaseBody }>(
    '/telephony/carrier-d/purchase',
    { schema: schemas.purchase, config: write, preHandler: telephony.limits.route },
    async (request, reply) =>
      reply.code(201).send(ok(await carrierD.purchase(principalOf(request), request.body), 'India number purchased')),
  );

  app.post<{ Params: { id: string }; Body: schemas.RenewBody }>(
    '/telephony/carrier-d/numbers/:id/renew',
    { schema: schemas.renew, config: write, preHandler: telephony.limits.route },
    async (request) =>
      ok(await carrierD.renew(principalOf(request), request.params.id, request.body), 'India number renewed'),
  );
}

export const carrierD: TelephonyCarrierModule = {
  provider: carrierDModule.name,
  routes: carrierDRoutes,
  account: carrierDModule.account,
};
