/**
 * OpenAPI 3.1, generated from the route schemas and served at /api/v1/openapi.json. Where the spec says "not
 * shown", the routes' schemas and descriptions are where Parley documents its own design.
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { documentOperation } from './openapi-operations.ts';

/** The document's tags, in reading order; every operation carries one of them. */
const TAGS = [
  { name: 'health', description: 'Liveness and readiness probes for orchestrators (no key).' },
  { name: 'api-keys', description: 'The calling API key.' },
  { name: 'widget-tokens', description: "Public tokens that open an agent's web widget." },
  { name: 'organisations', description: 'Organisations and their settings.' },
  { name: 'members', description: 'Members of an organisation and their roles.' },
  { name: 'invitations', description: 'Invitations to join an organisation.' },
  { name: 'agents', description: 'Voice and chat agents, their greetings and voices.' },
  { name: 'ai-enhancement', description: "Rewriting an agent's texts with the language model." },
  { name: 'calls', description: 'Placing calls and reading call records and recordings.' },
  { name: 'call history', description: 'Call history and transcripts.' },
  { name: 'results', description: 'What calls achieved, per agent (resultsConfig).' },
  { name: 'analytics', description: 'Analysis of calls by the language model.' },
  { name: 'telephony', description: 'Carriers, phone numbers and their agents.' },
  { name: 'sip', description: 'SIP trunks and SIP configurations: phone calls over business phone systems.' },
  { name: 'wallet', description: 'The pay-as-you-go wallet (US dollars) and the history of both wallets.' },
  {
    name: 'billing',
    description:
      'Billing identity and country, rates, status, usage, plans, the rate card, the plan wallet and top-ups.',
  },
  {
    name: 'payments',
    description: "Payment orders at the processor, and the processor's signed webhook that credits the wallet.",
  },
  { name: 'mcp', description: 'The MCP server for AI hosts (JSON-RPC 2.0 over Streamable HTTP).' },
];

export default fp(
  async function swaggerPlugin(app: FastifyInstance, options: { publicUrl: string; version: string }) {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Parley REST API',
          version: options.version,
          license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
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
        tags: TAGS,
      },
      hideUntagged: false,
      transform: documentOperation,
      // Shared schemas appear under their own names (Organisation, Member, …) rather than def-0, def-1, ….
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
    });
    app.get('/api/v1/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  },
  { name: 'parley-swagger' },
);
