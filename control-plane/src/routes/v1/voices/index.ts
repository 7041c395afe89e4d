/** /voice/voices: the text-to-speech voices agents can use (spec document 2, Agents; scope agents:read). */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import * as schemas from './schemas.ts';
import { VoiceCatalogue } from '../../../voices/voice-catalogue.ts';

export default async function voiceRoutes(app: FastifyInstance) {
  const catalogue = new VoiceCatalogue(app.bus);

  app.get<{ Querystring: schemas.VoicesQuery }>(
    '/voice/voices',
    { schema: schemas.listVoices, config: { scope: 'agents:read' } },
    async (request) => ok(await catalogue.list(request.query)),
  );
}
