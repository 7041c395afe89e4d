/** /organisations: the key's own organisation (spec document 2, Organisation and members). */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import * as schemas from './schemas.ts';
import { OrganisationService } from '../../../accounts/organisation-service.ts';

export default async function organisationRoutes(app: FastifyInstance) {
  const organisations = new OrganisationService(app.sql, app.organisationCache);

  app.get('/organisations', { schema: schemas.listOrganisations, config: { scope: 'org:read' } }, async (request) =>
    ok(await organisations.list(principalOf(request))),
  );

  app.get<{ Params: { id: string } }>(
    '/organisations/:id',
    { schema: schemas.getOrganisation, config: { scope: 'org:read', organisationParams: ['id'] } },
    async (request) => ok(await organisations.own(principalOf(request))),
  );

  app.put<{ Params: { id: string }; Body: schemas.UpdateOrganisationBody }>(
    '/organisations/:id',
    { schema: schemas.updateOrganisation, config: { scope: 'org:write', organisationParams: ['id'] } },
    async (request) => ok(await organisations.update(principalOf(request), request.body), 'Organisation updated'),
  );

  app.get<{ Params: { userId: string } }>(
    '/organisations/user/:userId',
    { schema: schemas.organisationsOfUser, config: { scope: 'org:read' } },
    async (request) => ok(await organisations.ofUser(principalOf(request), request.params.userId)),
  );
}
