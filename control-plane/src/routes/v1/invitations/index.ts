/**
 * Invitations, under both route families the spec names (/organisations/… and /members/organisation/…; the
 * latter also needs an OWNER or ADMIN key owner), plus what the spec leaves to the dashboard: cancelling, and the
 * token-authenticated preview and accept that the invitation e-mail links to.
 */
import type { FastifyInstance } from 'fastify';
import { MANAGER_ROLES } from '../../../auth/scopes.ts';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import * as schemas from './schemas.ts';
import { InvitationService } from '../../../accounts/invitation-service.ts';

type OrgParams = { organisationId: string };

export default async function invitationRoutes(
  app: FastifyInstance,
  options: { publicUrl: string; onMailQueued: () => void },
) {
  const invitations = new InvitationService(app.sql, { ...options, organisations: app.organisationCache });

  for (const [prefix, roles] of [
    ['/organisations/:organisationId', undefined],
    ['/members/organisation/:organisationId', MANAGER_ROLES],
  ] as const) {
    app.post<{ Params: OrgParams; Body: schemas.InviteBody }>(
      `${prefix}/invite`,
      { schema: schemas.invite, config: { scope: 'org:write', ...(roles && { roles }) } },
      async (request, reply) =>
        reply.code(201).send(ok(await invitations.invite(principalOf(request), request.body), 'Invitation sent')),
    );
    app.get<{ Params: OrgParams }>(
      `${prefix}/invitations`,
      { schema: schemas.listInvitations, config: { scope: 'org:read', ...(roles && { roles }) } },
      async (request) => ok(await invitations.list(principalOf(request))),
    );
  }

  app.delete<{ Params: OrgParams & { id: string } }>(
    '/organisations/:organisationId/invitations/:id',
    { schema: schemas.cancelInvitation, config: { scope: 'org:write', roles: MANAGER_ROLES } },
    async (request) => ok(await invitations.cancel(principalOf(request), request.params.id), 'Invitation cancelled'),
  );

  app.get<{ Params: { token: string } }>(
    '/invitations/:token',
    { schema: schemas.previewInvitation, config: { auth: 'public' } },
    async (request) => ok(await invitations.preview(request.params.token)),
  );

  app.post<{ Params: { token: string }; Body: schemas.AcceptBody | undefined }>(
    '/invitations/:token/accept',
    {
      schema: schemas.acceptInvitation,
      config: { auth: 'public' },
      // The body and its one field are optional: a POST with no body at all means `{}`, not "body must be an object".
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => ok(await invitations.accept(request.params.token, request.body?.name), 'Invitation accepted'),
  );
}
