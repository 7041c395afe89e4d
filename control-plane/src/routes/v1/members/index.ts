/** /members: membership management of the key's organisation (spec document 2, Organisation and members). */
import type { FastifyInstance } from 'fastify';
import { MANAGER_ROLES } from '../../../auth/scopes.ts';
import { ok } from '../../../http/envelope.ts';
import { principalOf } from '../../../plugins/app/auth.ts';
import * as schemas from './schemas.ts';
import { MemberService } from '../../../accounts/member-service.ts';

type OrgParams = { organisationId: string };
type MemberParams = { organisationId: string; userId: string };

export default async function memberRoutes(app: FastifyInstance) {
  const members = new MemberService(app.sql, app.keys, app.organisationCache);
  const managers = { roles: MANAGER_ROLES };

  app.get<{ Params: OrgParams }>(
    '/members/organisation/:organisationId/members',
    { schema: schemas.listMembers, config: { scope: 'org:read' } },
    async (request) => ok(await members.list(principalOf(request))),
  );

  app.post<{ Params: OrgParams; Body: schemas.AddMemberBody }>(
    '/members/organisation/:organisationId/members',
    { schema: schemas.addMember, config: { scope: 'org:write', ...managers } },
    async (request, reply) => {
      const member = await members.add(principalOf(request), request.body.userId, request.body.role);
      return reply.code(201).send(ok(member, 'Member added'));
    },
  );

  app.put<{ Params: MemberParams; Body: schemas.ChangeRoleBody }>(
    '/members/organisation/:organisationId/members/:userId',
    { schema: schemas.changeRole, config: { scope: 'org:write', ...managers } },
    async (request) =>
      ok(await members.changeRole(principalOf(request), request.params.userId, request.body.role), 'Role updated'),
  );

  app.delete<{ Params: MemberParams }>(
    '/members/organisation/:organisationId/members/:userId',
    { schema: schemas.removeMember, config: { scope: 'org:write', ...managers } },
    async (request) => {
      await members.remove(principalOf(request), request.params.userId);
      return ok(null, 'Member removed');
    },
  );

  app.get<{ Params: { userId: string } }>(
    '/members/user/:userId/memberships',
    { schema: schemas.membershipsOfUser, config: { scope: 'org:read' } },
    async (request) => ok(await members.membershipsOf(principalOf(request), request.params.userId)),
  );
}
