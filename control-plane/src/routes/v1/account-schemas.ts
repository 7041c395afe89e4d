/** Response schemas of the identity records (spec document 1), shared by several route families. */
import { Type } from '@sinclair/typebox';
import { NullableString, NullableTimestamp, Timestamp } from '../../http/schemas.ts';
import { RoleSchema } from '../../accounts/types.ts';
export { RoleSchema } from '../../accounts/types.ts';

export const UserSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    email: Type.String(),
    avatar: NullableString,
    lastLogin: NullableTimestamp,
    isActive: Type.Boolean(),
    isEmailVerified: Type.Boolean(),
    emailVerifiedAt: NullableTimestamp,
    isWhitelisted: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: NullableTimestamp,
  },
  { $id: 'User' },
);

const organisationFields = {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: Type.String({ description: 'PERSONAL or TEAM' }),
  visibility: Type.String({ description: 'PRIVATE or PUBLIC' }),
  ownerId: Type.String(),
  isActive: Type.Boolean(),
  features: Type.Array(Type.String(), {
    description: 'Feature flags: flow_agents, self_serve_telephony, india_provisioning, managed_numbers',
  }),
  billingCountry: NullableString,
  companyName: NullableString,
  companyRegistrationNumber: NullableString,
  addressLine1: NullableString,
  addressLine2: NullableString,
  city: NullableString,
  state: NullableString,
  postalCode: NullableString,
  gstin: NullableString,
  mobile: NullableString,
  metaData: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: NullableTimestamp,
};

export const OrganisationSummarySchema = Type.Object(organisationFields, { $id: 'OrganisationSummary' });

export const MemberSchema = Type.Object(
  {
    id: Type.String({ description: 'Membership id; for a virtual owner entry, the owner user id' }),
    organisationId: Type.String(),
    userId: Type.String(),
    role: RoleSchema,
    joinedAt: Timestamp,
    user: Type.Ref('User'),
    organisation: Type.Ref('OrganisationSummary'),
  },
  { $id: 'Member' },
);

export const OrganisationSchema = Type.Object(
  {
    ...organisationFields,
    owner: Type.Ref('User'),
    members: Type.Array(Type.Ref('Member')),
  },
  { $id: 'Organisation' },
);

export const InvitationSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: RoleSchema,
    invitedById: Type.String(),
    status: Type.String({ description: 'PENDING, ACCEPTED, CANCELLED, or EXPIRED (a PENDING one past expiresAt)' }),
    token: Type.String({ description: '64 hexadecimal characters' }),
    expiresAt: Timestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    invitedBy: Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }),
  },
  { $id: 'Invitation' },
);

/** Registered once on the app so routes can `$ref` them and the OpenAPI document lists them as components. */
export const sharedSchemas = [
  UserSchema,
  OrganisationSummarySchema,
  MemberSchema,
  OrganisationSchema,
  InvitationSchema,
];
