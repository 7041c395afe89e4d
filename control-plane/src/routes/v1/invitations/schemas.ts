import { Type, type Static } from '@sinclair/typebox';
import { RoleSchema } from '../account-schemas.ts';
import { Envelope, Id, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { InviteBody } from '../../../accounts/types.ts';
export { InviteBody } from '../../../accounts/types.ts';

const OrganisationParams = Type.Object({ organisationId: Id('Organisation id (own organisation)') });
const TokenParams = Type.Object({
  token: Type.String({ pattern: '^[0-9a-f]{64}$', description: '64 hexadecimal characters' }),
});

export const invite = {
  tags: ['invitations'],
  summary: 'Invite by e-mail (creates, or re-opens an expired or cancelled invitation; valid 7 days)',
  params: OrganisationParams,
  body: InviteBody,
  response: { 201: Envelope(Type.Ref('Invitation')), ...authErrors },
};

export const listInvitations = {
  tags: ['invitations'],
  summary: 'All invitations of the organisation, newest first',
  params: OrganisationParams,
  response: { 200: Envelope(Type.Array(Type.Ref('Invitation'))), ...authErrors },
};

export const cancelInvitation = {
  tags: ['invitations'],
  summary: 'Cancel a pending invitation (OWNER or ADMIN); it can be re-opened by inviting again',
  params: Type.Object({ organisationId: Id('Organisation id (own organisation)'), id: Id('Invitation id') }),
  response: { 200: Envelope(Type.Ref('Invitation')), ...authErrors, ...errors(404) },
};

export const InvitationPreview = Type.Object({
  organisationName: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  status: Type.String(),
  expiresAt: Timestamp,
  invitedBy: Type.Object({ name: Type.String() }),
});

export const previewInvitation = {
  tags: ['invitations'],
  summary: 'What an invitation offers, by its token (no API key: the token is the credential)',
  security: [],
  params: TokenParams,
  response: { 200: Envelope(InvitationPreview), 400: Type.Ref('ErrorBody'), ...errors(404) },
};

export const AcceptBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 2, maxLength: 255 })) },
  { additionalProperties: false, description: 'name: the new user’s name when the invitee has no account yet' },
);
export type AcceptBody = Static<typeof AcceptBody>;

export const acceptInvitation = {
  tags: ['invitations'],
  summary:
    'Accept an invitation: creates the user if needed and adds the membership (no API key: the token is the credential)',
  security: [],
  params: TokenParams,
  body: Type.Optional(AcceptBody),
  response: { 200: Envelope(Type.Ref('Member')), 400: Type.Ref('ErrorBody'), ...errors(404) },
};
