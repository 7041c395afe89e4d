/**
 * Webhooks: public routes (no API key), each request checked against its sender's signature — the carriers' voice
 * webhooks against the organisation's carrier account, the payment processor's against the webhook secret.
 */
import type { FastifyInstance } from 'fastify';
import type { CarrierCalls } from '../../calls/launch/carrier-calls.ts';
import type { PaymentSetup } from '../../payments/payment-setup.ts';
import carrierVoiceRoutes from './carrier-voice.ts';
import paymentWebhookRoutes from './payments.ts';

export default async function webhookRoutes(
  app: FastifyInstance,
  options: { calls: CarrierCalls; publicUrl: string; payments: PaymentSetup },
) {
  await app.register(carrierVoiceRoutes, options);
  await app.register(paymentWebhookRoutes, { setup: options.payments });
}
