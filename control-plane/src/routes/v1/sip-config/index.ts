/**
 * /sip-config (spec document 2 "SIP configuration"; docs/architecture.md §12): the organisation's SIP configurations
 * and the trunks they use. Reads need sip:read (the spec's three, and Parley's trunk and provider reads); writes
 * need sip:write. The work is sip/sip-config-service.ts's.
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { KeyRing } from '../../../secrets/key-ring.ts';
import { SipConfigService } from '../../../sip/sip-config-service.ts';
import { announceRegistrationsChanged } from '../../../sip/sip-registrations.ts';
import * as schemas from './schemas.ts';

type OrganisationParams = { organisationId: string };

export default async function sipConfigRoutes(app: FastifyInstance, options: { keyRing: KeyRing | undefined }) {
  const service = new SipConfigService(app.sql, options.keyRing, () => announceRegistrationsChanged(app.bus));
  const organisation = (request: Parameters<typeof principalOf>[0]) => principalOf(request).organisationId;

  app.get('/sip-config/providers', { schema: schemas.listProviders, config: { scope: 'sip:read' } }, async () =>
    ok(await service.providers()),
  );

  app.get<{ Params: OrganisationParams }>(
    '/sip-config/organisation/:organisationId',
    { schema: schemas.listConfigurations, config: { scope: 'sip:read' } },
    async (request) => ok(await service.list(organisation(request))),
  );

  app.get<{ Params: OrganisationParams }>(
    '/sip-config/organisation/:organisationId/inbound',
    { schema: schemas.listInbound, config: { scope: 'sip:read' } },
    async (request) => ok(await service.list(organisation(request), 'INBOUND')),
  );

  app.get<{ Params: OrganisationParams }>(
    '/sip-config/organisation/:organisationId/trunks',
    { schema: schemas.listTrunks, config: { scope: 'sip:read' } },
    async (request) => ok(await service.trunks(organisation(request))),
  );

  app.get<{ Params: schemas.IdParams }>(
    '/sip-config/:id',
    { schema: schemas.getConfiguration, config: { scope: 'sip:read' } },
    async (request) => ok(await service.get(organisation(request), request.params.id)),
  );

  app.post<{ Body: schemas.CreateConfigurationBody }>(
    '/sip-config',
    { schema: schemas.createConfiguration, config: { scope: 'sip:write' } },
    async (request, reply) =>
      reply.code(201).send(ok(await service.create(organisation(request), request.body), 'SIP configuration created')),
  );

  app.patch<{ Params: schemas.IdParams; Body: schemas.UpdateConfigurationBody }>(
    '/sip-config/:id',
    { schema: schemas.updateConfiguration, config: { scope: 'sip:write' } },
    async (request) =>
      ok(await service.update(organisation(request), request.params.id, request.body), 'SIP configuration updated'),
  );

  app.delete<{ Params: schemas.IdParams }>(
    '/sip-config/:id',
    { schema: schemas.deleteConfiguration, config: { scope: 'sip:write' } },
    async (request) => ok(await service.remove(organisation(request), request.params.id), 'SIP configuration deleted'),
  );

  app.get<{ Params: schemas.IdParams }>(
    '/sip-config/trunks/:id',
    { schema: schemas.getTrunk, config: { scope: 'sip:read' } },
    async (request) => ok(await service.trunk(organisation(request), request.params.id)),
  );

  app.post<{ Body: schemas.CreateTrunkBody }>(
    '/sip-config/trunks',
    { schema: schemas.createTrunk, config: { scope: 'sip:write' } },
    async (request, reply) =>
      reply.code(201).send(ok(await service.createTrunk(organisation(request), request.body), 'SIP trunk created')),
  );

  app.patch<{ Params: schemas.IdParams; Body: schemas.UpdateTrunkBody }>(
    '/sip-config/trunks/:id',
    { schema: schemas.updateTrunk, config: { scope: 'sip:write' } },
    async (request) =>
      ok(await service.updateTrunk(organisation(request), request.params.id, request.body), 'SIP trunk updated'),
  );

  app.delete<{ Params: schemas.IdParams }>(
    '/sip-config/trunks/:id',
    { schema: schemas.deleteTrunk, config: { scope: 'sip:write' } },
    async (request) => ok(await service.removeTrunk(organisation(request), request.params.id), 'SIP trunk deleted'),
  );
}
