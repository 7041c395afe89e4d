/** Carriers' webhooks: public routes (no API key), each request checked against its carrier account's signature. */
import type { FastifyInstance } from 'fastify';
import type { CarrierCalls } from '../../calls/launch/carrier-calls.ts';
import carrierVoiceRoutes from './carrier-voice.ts';

export default async function webhookRoutes(app: FastifyInstance, options: { calls: CarrierCalls; publicUrl: string }) {
  await app.register(carrierVoiceRoutes, options);
}
