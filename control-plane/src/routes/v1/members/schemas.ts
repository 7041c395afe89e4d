import { Type, type Static } from '@sinclair/typebox';
import { RoleSchema } from '../account-schemas.ts';
import { Envelope, Id, authErrors, errors } from '../../../http/schemas.ts';

const OrganisationParams = Type.Object({ organisationId: Id('Organisation id (own organisation)') });
const MemberParams = Type.Object({
  organisationId: Id('Organisation id (own organisation)'),
  userId: Id('User id of the member'),
});
const MemberList = Envelope(Type.Array(Type.Ref('Member')));

export const listMembers = {
  tags: ['members'],
  summary: 'Members with roles and profiles; the owner is listed even without a membership row',
  params: OrganisationParams,
  response: { 200: MemberList, ...authErrors },
};

export const AddMemberBody = Type.Object(
  { userId: Id('An existing user'), role: Type.Optional(RoleSchema) },
  { additionalProperties: false, description: 'role defaults to VIEWER; nobody grants a role above their own' },
);
export type AddMemberBody = Static<typeof AddMemberBody>;

export const addMember = {
  tags: ['members'],
  summary: 'Add an existing user without an invitation (OWNER or ADMIN)',
  params: OrganisationParams,
  body: AddMemberBody,
  response: { 201: Envelope(Type.Ref('Member')), ...authErrors },
};

export const ChangeRoleBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });
export type ChangeRoleBody = Static<typeof ChangeRoleBody>;

export const changeRole = {
  tags: ['members'],
  summary: "Change a member's role (OWNER or ADMIN); the owner's role cannot change",
  params: MemberParams,
  body: ChangeRoleBody,
  response: { 200: Envelope(Type.Ref('Member')), ...authErrors, ...errors(404) },
};

export const removeMember = {
  tags: ['members'],
  summary: 'Remove a member (OWNER or ADMIN); their API keys stop working at once; the owner cannot be removed',
  params: MemberParams,
  response: { 200: Envelope(Type.Null()), ...authErrors, ...errors(404) },
};

export const membershipsOfUser = {
  tags: ['members'],
  summary: "The key owner's membership in the key's organisation",
  params: Type.Object({ userId: Id('Must be the key owner’s user id') }),
  response: { 200: MemberList, ...authErrors },
};
