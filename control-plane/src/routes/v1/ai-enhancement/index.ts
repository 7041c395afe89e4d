/**
 * /ai-enhancement: rewrites agent text with the language model; nothing is saved (spec document 2, AI
 * enhancement; scope ai:enhance). Rate limited per client address and per key (spec document 3, Limits).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { FieldEnhancer } from '../../../enhancement/field-enhancer.ts';
import * as schemas from './schemas.ts';

export default async function aiEnhancementRoutes(app: FastifyInstance) {
  const enhancer = new FieldEnhancer(app.bus);
  const limits = [app.limit('aiEnhancementPerIp', 'ip'), app.limit('aiEnhancementPerKey', 'key')];

  app.post<{ Body: schemas.EnhanceFieldBody }>(
    '/ai-enhancement/enhance-field',
    { schema: schemas.enhanceField, config: { scope: 'ai:enhance' }, preHandler: limits },
    async (request, reply) => {
      const { fieldType, text } = request.body;
      const [result] = await enhancer.enhance(
        [{ fieldType, text, path: 'text' }],
        `ai-enhancement-${request.id}`,
        clientGone(reply),
      );
      return ok(result!);
    },
  );

  app.post<{ Body: schemas.EnhanceFieldsBody }>(
    '/ai-enhancement/enhance-fields',
    { schema: schemas.enhanceFields, config: { scope: 'ai:enhance' }, preHandler: limits },
    async (request, reply) => {
      const fields = request.body.fields.map((field, index) => ({ ...field, path: `fields.${index}.text` }));
      return ok({ results: await enhancer.enhance(fields, `ai-enhancement-${request.id}`, clientGone(reply)) });
    },
  );
}

/** Aborts when the connection closes, so a client that gave up stops the model's work (and its cost). */
function clientGone(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.once('close', () => abort.abort());
  return abort.signal;
}
