/**
 * "Own organisation" rule of spec document 3: any organisation id a request names — in the path, the query or the
 * body, under any of the spec's spellings — must be the key's own, otherwise 403. It runs before validation, so a
 * foreign id is refused even when the rest of the request is malformed. Routes that must answer 404 instead (the
 * spec names a few) set `foreignOrganisation: 'not-found'`.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';

export const ORGANISATION_ID_FIELDS = ['organisationId', 'orgId', 'organisation_id'] as const;

declare module 'fastify' {
  interface FastifyContextConfig {
    foreignOrganisation?: 'forbidden' | 'not-found';
    /** Path parameters that hold an organisation id under another name, e.g. `id` on /organisations/{id}. */
    organisationParams?: readonly string[];
  }
}

export default fp(
  async function tenancyPlugin(app: FastifyInstance) {
    app.addHook('preValidation', async (request) => {
      const principal = request.principal;
      if (!principal) return;
      const extraParams = request.routeOptions.config.organisationParams ?? [];
      for (const source of [request.params, request.query, request.body]) {
        if (!source || typeof source !== 'object') continue;
        const fields = source === request.params ? [...ORGANISATION_ID_FIELDS, ...extraParams] : ORGANISATION_ID_FIELDS;
        for (const field of fields) {
          const value = (source as Record<string, unknown>)[field];
          if (value === undefined || value === null || value === '' || value === principal.organisationId) continue;
          if (request.routeOptions.config.foreignOrganisation === 'not-found') {
            throw new ApiError('not_found', 'Organisation not found');
          }
          throw new ApiError('foreign_organisation', `${field} is not the organisation of this API key`);
        }
      }
    });
  },
  { name: 'parley-tenancy', dependencies: ['parley-auth'] },
);
