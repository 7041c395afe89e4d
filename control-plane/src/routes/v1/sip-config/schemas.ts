/**
 * Route schemas of /sip-config (spec document 2 "SIP configuration"; docs/architecture.md §12). The spec shows the
 * three reads (scope sip:read); the writes of configurations and of the trunks they use are Parley's own (scope
 * sip:write). Secrets are write-only: a trunk shows `hasPassword`, never the password.
 */
import { Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';
import { Envelope, Id, NullableString, StringEnum, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { E164_PATTERN } from '../../../http/e164.ts';
import { CALLING_SCOPES } from '../../../calls/launch/calling-scope.ts';
import { SIP_CONFIGURATION_TYPES, SIP_TRANSPORTS } from '../../../sip/records.ts';

const TAGS = ['sip'];
export const OrganisationParams = Type.Object({ organisationId: Id("Organisation id (the key's own)") });
export const IdParams = Type.Object({ id: Id() });
export type IdParams = Static<typeof IdParams>;

const NullableId = Type.Unsafe<string | null>({ type: ['string', 'null'], pattern: '^[0-9a-f]{24}$' });
/** Largest price accepted, in major units: a guard against typos (a million per minute is one). */
const MAX_PRICE = 1_000_000;
const Price = (description: string) => Type.Number({ minimum: 0, maximum: MAX_PRICE, description });

const Provider = Type.Object(
  {
    id: Type.String(),
    name: Type.String({ description: 'Machine name, e.g. generic' }),
    displayName: Type.String(),
    isSystem: Type.Boolean({ description: "Parley's own catalogue entry (not editable)" }),
    isActive: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'Who runs the trunk' },
);

const SipConfiguration = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    sipTrunkId: Type.String({ description: 'The trunk the calls go over (GET /sip-config/trunks/{id})' }),
    type: StringEnum(SIP_CONFIGURATION_TYPES),
    providerId: Type.String(),
    provider: Provider,
    agentId: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description:
        'INBOUND: the agent that answers (null: unassigned, callers are refused 480); OUTBOUND: the agent dialling from it (null: any agent)',
    }),
    phoneNumber: Type.String({
      description: 'E.164: the number dialled (INBOUND) or presented as the caller (OUTBOUND)',
    }),
    maxConcurrentCalls: Type.Integer({
      description: 'Live calls over the configuration at once; one more is busy (SIP 486, or 409 outbound)',
    }),
    maxQueueSize: Type.Integer({
      description: 'INBOUND: callers that may wait for a line when all are live (0: none wait)',
    }),
    callTimeoutMs: Type.Integer({
      description:
        'OUTBOUND: ringing longer than this is given up (no_answer); INBOUND: the longest a caller waits in the queue (at most 6 s)',
    }),
    callingScope: Type.String({
      description: 'OUTBOUND: where it may call — SAME_COUNTRY, ALLOWED_COUNTRIES or ANY (403 outside)',
    }),
    allowedCountries: Type.Array(Type.String(), { description: 'ISO 3166 alpha-2, counted with ALLOWED_COUNTRIES' }),
    sipReferEnabled: Type.Boolean({ description: 'Transfers by SIP REFER; otherwise the gateway bridges a new leg' }),
    customerRentalPerMonth: Type.Number({ description: "Major units of the organisation's billing currency" }),
    customerInboundSurchargePerMin: Type.Number({
      description: 'Added to the per-minute price of answered INBOUND calls',
    }),
    customerOutboundSurchargePerMin: Type.Number({
      description: 'Added to the per-minute price of answered OUTBOUND calls',
    }),
    isActive: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'Spec document 1 "SIP configuration"; internal carrier costs are never included' },
);

const SipTrunk = Type.Object({
  id: Type.String(),
  organisationId: Type.String(),
  name: Type.String(),
  host: Type.String(),
  port: Type.Integer(),
  transport: StringEnum(SIP_TRANSPORTS),
  username: NullableString,
  hasPassword: Type.Boolean({ description: 'Whether a digest password is stored (it is never returned)' }),
  sourceAddresses: Type.Array(Type.String(), {
    description: 'Addresses or CIDR blocks INVITEs for its numbers may come from; others are refused 403',
  }),
  register: Type.Boolean({
    description: 'Whether the SIP gateways REGISTER with the trunk (address of record sip:<username>@<host>)',
  }),
  registrations: Type.Array(
    Type.Object({
      gatewayId: Type.String({ description: 'The gateway instance that registers' }),
      state: StringEnum(['registering', 'registered', 'failing'] as const, {
        description: 'failing: the last REGISTER was refused or unanswered; the gateway retries with back-off',
      }),
      sipStatus: Type.Union([Type.Integer(), Type.Null()], {
        description: "The registrar's last final status (408 when it did not answer)",
      }),
      reason: NullableString,
      expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'When the granted registration runs out' }),
      updatedAt: Timestamp,
    }),
    {
      description:
        "Each gateway's registration as it last reported it; empty when register is off. A gateway silent past its grant (or 10 minutes) is left out",
    },
  ),
  isActive: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const configurationFields = {
  sipTrunkId: Id('A SIP trunk of the organisation'),
  type: StringEnum(SIP_CONFIGURATION_TYPES),
  providerId: Type.String({ minLength: 1, maxLength: 64, description: 'Provider id or name; default generic' }),
  agentId: NullableId,
  phoneNumber: Type.String({ pattern: E164_PATTERN, description: 'E.164, e.g. +14155550100' }),
  maxConcurrentCalls: Type.Integer({ minimum: 1, maximum: 10_000, description: 'Default 10' }),
  maxQueueSize: Type.Integer({ minimum: 0, maximum: 1_000, description: 'INBOUND only; default 0' }),
  callTimeoutMs: Type.Integer({ minimum: 1_000, maximum: 300_000, description: 'Default 30000' }),
  callingScope: StringEnum(CALLING_SCOPES, { description: 'Default SAME_COUNTRY' }),
  allowedCountries: Type.Array(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 alpha-2, upper case' }), {
    maxItems: 250,
    uniqueItems: true,
  }),
  sipReferEnabled: Type.Boolean(),
  customerRentalPerMonth: Price('Major units; at most 6 decimals'),
  customerInboundSurchargePerMin: Price('Major units per minute; at most 6 decimals'),
  customerOutboundSurchargePerMin: Price('Major units per minute; at most 6 decimals'),
  isActive: Type.Boolean(),
};

/** The same fields, each optional (create's optional fields, update's all). */
const optional = <T extends Record<string, TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: TOptional<T[K]>;
  };

export const CreateConfigurationBody = Type.Object(
  {
    organisationId: Type.Optional(Id('Own organisation')),
    sipTrunkId: configurationFields.sipTrunkId,
    type: configurationFields.type,
    phoneNumber: configurationFields.phoneNumber,
    ...optional({
      providerId: configurationFields.providerId,
      agentId: configurationFields.agentId,
      maxConcurrentCalls: configurationFields.maxConcurrentCalls,
      maxQueueSize: configurationFields.maxQueueSize,
      callTimeoutMs: configurationFields.callTimeoutMs,
      callingScope: configurationFields.callingScope,
      allowedCountries: configurationFields.allowedCountries,
      sipReferEnabled: configurationFields.sipReferEnabled,
      customerRentalPerMonth: configurationFields.customerRentalPerMonth,
      customerInboundSurchargePerMin: configurationFields.customerInboundSurchargePerMin,
      customerOutboundSurchargePerMin: configurationFields.customerOutboundSurchargePerMin,
      isActive: configurationFields.isActive,
    }),
  },
  { additionalProperties: false },
);
export type CreateConfigurationBody = Static<typeof CreateConfigurationBody>;

export const UpdateConfigurationBody = Type.Object(
  { organisationId: Type.Optional(Id('Own organisation')), ...optional(configurationFields) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateConfigurationBody = Static<typeof UpdateConfigurationBody>;

const trunkFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  host: Type.String({ minLength: 1, maxLength: 253, description: 'Host name or IP address of the trunk' }),
  port: Type.Integer({ minimum: 1, maximum: 65_535, description: 'Default 5060' }),
  transport: StringEnum(SIP_TRANSPORTS, { description: 'Default udp' }),
  username: Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 128, description: 'Digest user name' }),
  password: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength: 256,
    description: 'Digest password: stored encrypted, never returned; null or "" removes it, absent keeps it',
  }),
  sourceAddresses: Type.Array(Type.String({ maxLength: 64 }), {
    maxItems: 100,
    uniqueItems: true,
    description: 'IPv4/IPv6 addresses or CIDR blocks (203.0.113.0/24) INVITEs may come from',
  }),
  register: Type.Boolean({
    description:
      'Whether the SIP gateways REGISTER with the trunk (digest with username and password; needs username); default false',
  }),
  isActive: Type.Boolean(),
};

export const CreateTrunkBody = Type.Object(
  {
    organisationId: Type.Optional(Id('Own organisation')),
    name: trunkFields.name,
    host: trunkFields.host,
    ...optional({
      port: trunkFields.port,
      transport: trunkFields.transport,
      username: trunkFields.username,
      password: trunkFields.password,
      sourceAddresses: trunkFields.sourceAddresses,
      register: trunkFields.register,
      isActive: trunkFields.isActive,
    }),
  },
  { additionalProperties: false },
);
export type CreateTrunkBody = Static<typeof CreateTrunkBody>;

export const UpdateTrunkBody = Type.Object(
  { organisationId: Type.Optional(Id('Own organisation')), ...optional(trunkFields) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateTrunkBody = Static<typeof UpdateTrunkBody>;

export const listConfigurations = {
  tags: TAGS,
  summary: "The organisation's SIP configurations",
  description: 'All configurations, inbound and outbound, active and inactive, oldest first.',
  params: OrganisationParams,
  response: { 200: Envelope(Type.Array(SipConfiguration)), ...authErrors },
};

export const listInbound = {
  tags: TAGS,
  summary: "The organisation's INBOUND SIP configurations",
  description: 'INBOUND configurations only, assigned to an agent or not, active and inactive, oldest first.',
  params: OrganisationParams,
  response: { 200: Envelope(Type.Array(SipConfiguration)), ...authErrors },
};

export const getConfiguration = {
  tags: TAGS,
  summary: 'One SIP configuration',
  description: '403 when it belongs to another organisation; 404 when there is none with the id.',
  params: IdParams,
  response: { 200: Envelope(SipConfiguration), ...authErrors, ...errors(404) },
};

export const createConfiguration = {
  tags: TAGS,
  summary: 'Create a SIP configuration',
  description:
    "Not in the spec (which shows SIP configurations read-only). Puts a number of one of the organisation's SIP " +
    "trunks to work: INBOUND, answered by agentId (calls to phoneNumber from the trunk's sourceAddresses), or " +
    'OUTBOUND, the caller number of POST /voice/session calls with callType sip by agents without a carrier number. ' +
    'Unsent fields take their defaults. 400 names each bad field (an unknown trunk, provider or agent too); 409 when ' +
    'another active INBOUND configuration already answers the number.',
  body: CreateConfigurationBody,
  response: { 201: Envelope(SipConfiguration), ...authErrors, ...errors(409) },
};

export const updateConfiguration = {
  tags: TAGS,
  summary: 'Change a SIP configuration',
  description:
    "Not in the spec. Partial: only sent fields change; agentId null unassigns. 403 another organisation's, 404 none, " +
    '409 as on create.',
  params: IdParams,
  body: UpdateConfigurationBody,
  response: { 200: Envelope(SipConfiguration), ...authErrors, ...errors(404, 409) },
};

export const deleteConfiguration = {
  tags: TAGS,
  summary: 'Delete a SIP configuration',
  description:
    'Not in the spec. Permanent; calls made over it keep their records. Live calls go on; new ones are no longer ' +
    "routed. Answers the deleted configuration. 403 another organisation's, 404 none.",
  params: IdParams,
  response: { 200: Envelope(SipConfiguration), ...authErrors, ...errors(404) },
};

export const listProviders = {
  tags: TAGS,
  summary: 'SIP providers',
  description: "Not in the spec: the catalogue a configuration's providerId names (Parley's own entries).",
  response: { 200: Envelope(Type.Array(Provider)), ...authErrors },
};

export const listTrunks = {
  tags: TAGS,
  summary: "The organisation's SIP trunks",
  description: 'Not in the spec. Oldest first; passwords are never returned.',
  params: OrganisationParams,
  response: { 200: Envelope(Type.Array(SipTrunk)), ...authErrors },
};

export const getTrunk = {
  tags: TAGS,
  summary: 'One SIP trunk',
  description: "Not in the spec. 403 another organisation's, 404 none.",
  params: IdParams,
  response: { 200: Envelope(SipTrunk), ...authErrors, ...errors(404) },
};

export const createTrunk = {
  tags: TAGS,
  summary: 'Add a SIP trunk',
  description:
    'Not in the spec. Where SIP calls go (host, port, transport; digest username and password for its challenges, ' +
    'the password stored encrypted and never returned) and where its INVITEs come from (sourceAddresses). A ' +
    'password needs a username (400). 503 when the server keeps no secrets at rest (PARLEY_SECRET_KEYS) and a password is sent.',
  body: CreateTrunkBody,
  response: { 201: Envelope(SipTrunk), ...authErrors, ...errors(503) },
};

export const updateTrunk = {
  tags: TAGS,
  summary: 'Change a SIP trunk',
  description:
    'Not in the spec. Partial; password absent keeps it, null or "" removes it. 403 another organisation\'s, 404 none.',
  params: IdParams,
  body: UpdateTrunkBody,
  response: { 200: Envelope(SipTrunk), ...authErrors, ...errors(404, 503) },
};

export const deleteTrunk = {
  tags: TAGS,
  summary: 'Delete a SIP trunk',
  description: "Not in the spec. 409 while SIP configurations use it; 403 another organisation's, 404 none.",
  params: IdParams,
  response: { 200: Envelope(SipTrunk), ...authErrors, ...errors(404, 409) },
};
