/**
 * OpenAPI 3.1, generated from the route schemas and served at /api/v1/openapi.json. Where the spec says "not
 * shown", the routes' schemas and descriptions are where Parley documents its own design.
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

export default fp(
  async function swaggerPlugin(app: FastifyInstance, options: { publicUrl: string; version: string }) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Parley REST API',
          version: options.version,
          description:
            'REST API of Parley, the self-hostable platform for AI voice and chat agents. Every request carries ' +
            '`Authorization: Bearer <API_KEY>`. Responses use the envelope `{ success, data, message }`; errors are ' +
            '`{ success: false, message, code }` with `errors` listing each failing field on a 400.',
        },
        servers: [{ url: options.publicUrl }],
        components: {
          securitySchemes: {
            apiKey: { type: 'http', scheme: 'bearer', description: 'parley_prod_<8-char prefix>_<32 hex>' },
          },
        },
        security: [{ apiKey: [] }],
      },
      hideUntagged: false,
      // Shared schemas appear under their own names (Organisation, Member, …) rather than def-0, def-1, ….
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
    });
    app.get('/api/v1/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  },
  { name: 'parley-swagger' },
);
