/**
 * /campaigns (spec document 2, "Campaigns (REST)"; docs/architecture.md §13): settings (campaigns:write), reads
 * (campaigns:read), start / pause / complete (campaigns:control), contacts and uploads (contacts.ts), and the
 * dialler's health at /webhooks/campaign/status (webhooks:read).
 */
import type { FastifyInstance } from 'fastify';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import type { Campaigns } from '../../../campaigns/campaigns.ts';
import * as schemas from './schemas.ts';
import { contactRoutes } from './contacts.ts';

type IdParams = { id: string };

export default async function campaignRoutes(app: FastifyInstance, options: { campaigns: Campaigns }) {
  const { service, control, dialler } = options.campaigns;

  app.post<{ Body: schemas.CreateCampaignBody }>(
    '/campaigns',
    { schema: schemas.createCampaign, config: { scope: 'campaigns:write' } },
    async (request, reply) =>
      reply.code(201).send(ok(await service.create(principalOf(request), request.body), 'Campaign created')),
  );

  app.get<{ Params: { organisationId: string }; Querystring: schemas.ListQuery }>(
    '/campaigns/organisations/:organisationId',
    { schema: schemas.listCampaigns, config: { scope: 'campaigns:read' } },
    async (request) => ok(await service.list(principalOf(request), request.query)),
  );

  app.get<{ Params: IdParams }>(
    '/campaigns/:id',
    { schema: schemas.getCampaign, config: { scope: 'campaigns:read' } },
    async (request) => ok(await service.get(principalOf(request), request.params.id)),
  );

  app.put<{ Params: IdParams; Body: schemas.UpdateCampaignBody }>(
    '/campaigns/:id',
    { schema: schemas.updateCampaign, config: { scope: 'campaigns:write' } },
    async (request) =>
      ok(await service.update(principalOf(request), request.params.id, request.body), 'Campaign updated'),
  );

  app.delete<{ Params: IdParams }>(
    '/campaigns/:id',
    { schema: schemas.deleteCampaign, config: { scope: 'campaigns:write' } },
    async (request) => ok(await service.delete(principalOf(request), request.params.id), 'Campaign deleted'),
  );

  app.post<{ Params: IdParams; Body: schemas.DuplicateCampaignBody }>(
    '/campaigns/:id/duplicate',
    { schema: schemas.duplicateCampaign, config: { scope: 'campaigns:write' } },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await service.duplicate(principalOf(request), request.params.id, request.body ?? {}),
            'Campaign duplicated',
          ),
        ),
  );

  app.get<{ Params: IdParams }>(
    '/campaigns/:id/follow-up',
    { schema: schemas.followUpPreview, config: { scope: 'campaigns:read' } },
    async (request) => ok(await service.followUpPreview(principalOf(request), request.params.id)),
  );

  app.post<{ Params: IdParams }>(
    '/campaigns/:id/start',
    { schema: schemas.startCampaign, config: { scope: 'campaigns:control' } },
    async (request) => {
      const campaign = await control.start(principalOf(request), request.params.id);
      dialler.nudge();
      return ok(campaign, campaign.status === 'SCHEDULED' ? 'Campaign scheduled' : 'Campaign started');
    },
  );

  app.post<{ Params: IdParams }>(
    '/campaigns/:id/pause',
    { schema: schemas.pauseCampaign, config: { scope: 'campaigns:control' } },
    async (request) => ok(await control.pause(principalOf(request), request.params.id), 'Campaign paused'),
  );

  app.post<{ Params: IdParams }>(
    '/campaigns/:id/complete',
    { schema: schemas.completeCampaign, config: { scope: 'campaigns:control' } },
    async (request) => {
      const campaign = await control.complete(principalOf(request), request.params.id);
      return ok(campaign, campaign.status === 'CANCELLED' ? 'Campaign cancelled' : 'Campaign completed');
    },
  );

  app.get<{ Params: IdParams }>(
    '/campaigns/:id/stats',
    { schema: schemas.stats, config: { scope: 'campaigns:read' } },
    async (request) => ok(await control.stats(principalOf(request), request.params.id)),
  );

  await app.register(contactRoutes, { campaigns: options.campaigns });

  app.get(
    '/webhooks/campaign/status',
    {
      schema: schemas.diallerStatus,
      config: { scope: 'webhooks:read' },
      preHandler: [app.limit('dialerStatus', 'ip')],
    },
    async () => {
      const health = dialler.health();
      return {
        success: true as const,
        status: health.running ? ('RUNNING' as const) : ('STOPPED' as const),
        message: health.running
          ? 'The campaign dialler is running'
          : 'The campaign dialler is not running on this server',
        nextRunAt: health.nextRunAt?.toISOString() ?? null,
        lastRunAt: health.lastRunAt?.toISOString() ?? null,
        lastError: health.lastError,
        callsPlaced: health.callsPlaced,
      };
    },
  );
}
