/**
 * Wallet top-ups and payments (spec document 2, "Wallet and billing (REST)"): the pay-as-you-go quote and order,
 * and the plan-wallet top-up. The wallet is credited by the processor's webhook (routes/webhooks/payments.ts).
 */
import type { FastifyInstance } from 'fastify';
import { MANAGER_ROLES } from '../../../auth/scopes.ts';
import { ok } from '../../../http/envelope.ts';
import { createPaymentOrder } from '../../../payments/payment-orders.ts';
import type { PaymentSetup } from '../../../payments/payment-setup.ts';
import { startPlanPurchase } from '../../../payments/plan-subscriptions.ts';
import { createPlanTopUp } from '../../../payments/plan-topups.ts';
import { quoteTopUp } from '../../../payments/topup-quotes.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import * as schemas from './schemas.ts';

export default async function paymentRoutes(app: FastifyInstance, options: { setup: PaymentSetup }) {
  const { setup } = options;
  const config = { scope: 'wallet:write' as const, roles: MANAGER_ROLES };

  app.post<{ Body: schemas.TopUpQuoteBody }>(
    '/billing/topup-quote',
    { schema: schemas.topUpQuote, config },
    async (request) => ok(await quoteTopUp(setup, request.body)),
  );

  app.post<{ Body: schemas.CreateOrderBody }>(
    '/payments/create-order',
    // Spec document 3: the default limit of 30 per minute, which the widget routes share by name.
    { schema: schemas.createOrder, config, preHandler: [app.limit('widget', 'key')] },
    async (request, reply) =>
      reply.code(201).send(ok(await createPaymentOrder(setup, principalOf(request).userId, request.body))),
  );

  app.post<{ Body: schemas.PlanTopUpBody }>(
    '/billing/topups',
    { schema: schemas.planTopUp, config },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = { ...request.body, organisationId: request.body.organisationId ?? principal.organisationId };
      return reply.code(201).send(ok(await createPlanTopUp(setup, principal.userId, body)));
    },
  );

  app.post<{ Body: schemas.PlanPurchaseBody }>(
    '/billing/subscriptions',
    { schema: schemas.planPurchase, config },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = { ...request.body, organisationId: request.body.organisationId ?? principal.organisationId };
      return reply.code(201).send(ok(await startPlanPurchase(setup, principal.userId, body)));
    },
  );
}
