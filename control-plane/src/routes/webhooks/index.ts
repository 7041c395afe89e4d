/** Carriers' webhooks: public routes (no API key), each carrier checking its own request signatures. */
import type { FastifyInstance } from 'fastify';
import type { CallPlacement } from '../../calls/placement.ts';
import carrierBWebhookRoutes from './carrier-b.ts';

export default async function webhookRoutes(app: FastifyInstance, options: { placement: CallPlacement }) {
  await app.register(carrierBWebhookRoutes, options);
}
