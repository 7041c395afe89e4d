/** The inputs of the account services, as TypeBox schemas: the routes validate requests with them. */
import { Type, type Static } from '@sinclair/typebox';
import { ROLES } from '../auth/scopes.ts';
import { StringEnum } from '../http/schemas.ts';

export const RoleSchema = StringEnum(ROLES, { description: 'Role in the organisation' });

export const UpdateOrganisationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    type: Type.Optional(StringEnum(['PERSONAL', 'TEAM'] as const)),
    visibility: Type.Optional(StringEnum(['PRIVATE', 'PUBLIC'] as const)),
  },
  { description: 'Only these fields are writable; any other field sent is ignored (spec: silently ignored).' },
);
export type UpdateOrganisationBody = Static<typeof UpdateOrganisationBody>;

export const InviteBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    name: Type.String({ minLength: 2, maxLength: 255 }),
    role: Type.Optional(RoleSchema),
  },
  { additionalProperties: false, description: 'role defaults to VIEWER; nobody grants a role above their own' },
);
export type InviteBody = Static<typeof InviteBody>;
