/**
 * Rows of the identity tables and the records the API shows for them (spec document 1: Organisation, User,
 * Member, Invitation). Columns are snake_case; records are camelCase, as the spec writes them.
 */
import type { Role } from '../auth/scopes.ts';

export interface UserRow {
  id: string;
  name: string;
  email: string;
  avatar: string | null;
  last_login: Date | null;
  is_active: boolean;
  is_email_verified: boolean;
  email_verified_at: Date | null;
  is_whitelisted: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface OrganisationRow {
  id: string;
  name: string;
  description: string;
  type: 'PERSONAL' | 'TEAM';
  visibility: 'PRIVATE' | 'PUBLIC';
  owner_id: string;
  is_active: boolean;
  features: string[];
  billing_country: string | null;
  company_name: string | null;
  company_registration_number: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  gstin: string | null;
  mobile: string | null;
  meta_data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface MemberRow {
  id: string;
  organisation_id: string;
  user_id: string;
  role: Role;
  joined_at: Date;
}

export interface UserRecord {
  id: string;
  name: string;
  email: string;
  avatar: string | null;
  lastLogin: Date | null;
  isActive: boolean;
  isEmailVerified: boolean;
  emailVerifiedAt: Date | null;
  isWhitelisted: boolean;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface OrganisationRecord {
  id: string;
  name: string;
  description: string;
  type: string;
  visibility: string;
  ownerId: string;
  isActive: boolean;
  features: string[];
  billingCountry: string | null;
  companyName: string | null;
  companyRegistrationNumber: string | null;
  addressLine1: string | null;
  addressLine2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  gstin: string | null;
  mobile: string | null;
  metaData: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  owner?: UserRecord;
  members?: MemberRecord[];
}

export interface MemberRecord {
  id: string;
  organisationId: string;
  userId: string;
  role: Role;
  joinedAt: Date;
  user: UserRecord;
  organisation: OrganisationRecord;
}

export function userRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    avatar: row.avatar,
    lastLogin: row.last_login,
    isActive: row.is_active,
    isEmailVerified: row.is_email_verified,
    emailVerifiedAt: row.email_verified_at,
    isWhitelisted: row.is_whitelisted,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

export function organisationRecord(row: OrganisationRow): OrganisationRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    visibility: row.visibility,
    ownerId: row.owner_id,
    isActive: row.is_active,
    features: row.features,
    billingCountry: row.billing_country,
    companyName: row.company_name,
    companyRegistrationNumber: row.company_registration_number,
    addressLine1: row.address_line1,
    addressLine2: row.address_line2,
    city: row.city,
    state: row.state,
    postalCode: row.postal_code,
    gstin: row.gstin,
    mobile: row.mobile,
    metaData: row.meta_data,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

/**
 * The member list of spec document 1: every membership row, plus the owner as a virtual OWNER entry (id = the
 * owner's user id) when the owner has no row of their own.
 */
export function memberRecords(
  organisation: OrganisationRow,
  owner: UserRow,
  rows: readonly (MemberRow & { user: UserRow })[],
): MemberRecord[] {
  const org = organisationRecord(organisation);
  const members = rows.map((row) => ({
    id: row.id,
    organisationId: row.organisation_id,
    userId: row.user_id,
    role: row.user_id === organisation.owner_id ? ('OWNER' as const) : row.role,
    joinedAt: row.joined_at,
    user: userRecord(row.user),
    organisation: org,
  }));
  if (!rows.some((row) => row.user_id === owner.id)) {
    members.unshift({
      id: owner.id,
      organisationId: organisation.id,
      userId: owner.id,
      role: 'OWNER',
      joinedAt: organisation.created_at,
      user: userRecord(owner),
      organisation: org,
    });
  }
  return members;
}
