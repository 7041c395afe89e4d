/**
 * Schemas every /telephony route shares: the Phone number and Telephony integration records (spec document 1),
 * the overview and numbers reads, and the routing routes (assign and unassign: Parley's design, the spec leaves
 * them out). Carrier routes reference the records as `PhoneNumber` and `TelephonyIntegration`.
 */
import { CALLING_SCOPES } from '../../../calls/launch/calling-scope.ts';
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, Id, NullableString, StringEnum, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { CARRIERS } from '../../../telephony/carrier.ts';
import { ROUTING_STATUSES } from '../../../telephony/phone-number-repository.ts';

export const TAGS = ['telephony'];

const JsonObject = Type.Record(Type.String(), Type.Unknown());
const NullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const AgentRef = Type.Object({ id: Type.String(), name: Type.String() });

export const PhoneNumberSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    integrationId: NullableString,
    provider: StringEnum(CARRIERS),
    phoneNumber: Type.String({ description: 'E.164' }),
    countryCode: NullableString,
    providerNumberId: NullableString,
    friendlyName: NullableString,
    status: Type.String({ description: 'ACTIVE (inactive numbers are not listed)' }),
    routingStatus: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      enum: [...ROUTING_STATUSES, null],
      description:
        'ASSIGNED while an agent answers; otherwise PURCHASED (bought through Parley), READY, or NEEDS_SETUP ' +
        '(answering through another application at the carrier, left alone until assigned)',
    }),
    capabilities: Type.Object({ voice: Type.Boolean(), sms: Type.Boolean() }),
    agentId: Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'The agent answering inbound calls' }),
    agent: Type.Unsafe<{ id: string; name: string } | null>({
      type: ['object', 'null'],
      properties: AgentRef.properties,
    }),
    assignedAgents: Type.Array(AgentRef, { description: 'Agents answering inbound calls on the number' }),
    outboundAgents: Type.Array(AgentRef, {
      description: 'Agents dialling out with the number as their caller number (callingNumber)',
    }),
    customerRatePerMin: NullableNumber,
    monthlyCostUsd: NullableNumber,
    callingScope: StringEnum(CALLING_SCOPES, {
      description:
        'Where the number may call: SAME_COUNTRY (default), ALLOWED_COUNTRIES (its country and allowedCountries) or ANY. A destination outside it is refused with 403',
    }),
    allowedCountries: Type.Array(Type.String(), {
      description: 'ISO 3166 alpha-2 countries it may also call under ALLOWED_COUNTRIES',
    }),
    maxConcurrentCalls: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      description:
        "Not in the spec: calls the number may have live at once (its lines), besides the plan's concurrentCalls; null " +
        '(the default): no cap of its own. Set with PUT /telephony/numbers/{id}/call-limit',
    }),
    metadata: Type.Object(
      { source: NullableString, type: NullableString, region: NullableString, capabilities: JsonObject },
      {
        additionalProperties: true,
        description: 'source: import or purchase; type, region and capabilities as the carrier gives them',
      },
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'PhoneNumber', description: 'A phone number of the organisation (spec document 1, Phone number)' },
);

export const TelephonyIntegrationSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    provider: StringEnum(CARRIERS),
    isActive: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    config: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Settings (label, connected_at, amd, …); each stored credential appears only as the literal "configured"',
    }),
  },
  { $id: 'TelephonyIntegration', description: 'A carrier account connected by the organisation' },
);

export const sharedSchemas = [PhoneNumberSchema, TelephonyIntegrationSchema];

const PhoneNumberRef = Type.Ref('PhoneNumber');
const OrganisationParams = Type.Object({ organisationId: Id('Own organisation') });

const Overview = Type.Object({
  featureEnabled: Type.Boolean({
    description: 'Self-serve telephony (connecting own carrier accounts) is on for the organisation',
  }),
  processorEnabled: Type.Boolean({
    description: 'The organisation pays through the second payment processor (billing country IN)',
  }),
  paid: Type.Boolean({ description: 'The wallet has received a payment' }),
  wallet: Type.Unsafe({
    type: ['object', 'null'],
    description: 'null unless the key also holds wallet:read (or no wallet exists yet)',
    properties: { balance: { type: 'number' }, currency: { type: 'string' }, hasPaid: { type: 'boolean' } },
  }),
  rates: Type.Unsafe({
    type: ['object', 'null'],
    description: 'null unless the key also holds billing:read; baseRatePerMinute is null until billing sets a rate',
    properties: {
      baseRatePerMinute: { type: ['number', 'null'] },
      countryProviderRates: { type: 'object', additionalProperties: true },
    },
  }),
  integrations: Type.Array(Type.Ref('TelephonyIntegration'), {
    description: 'Connected carrier accounts, newest first',
  }),
  numbers: Type.Array(PhoneNumberRef, { description: 'Active numbers, newest first' }),
});

export const overview = {
  tags: TAGS,
  summary: 'Telephony overview: feature flags, wallet, rates, connected carrier accounts and active numbers',
  params: OrganisationParams,
  response: { 200: Envelope(Overview), ...authErrors, ...errors(404) },
};

export const listNumbers = {
  tags: TAGS,
  summary: 'Active phone numbers of the organisation, newest first (no pagination)',
  params: OrganisationParams,
  response: { 200: Envelope(Type.Array(PhoneNumberRef)), ...authErrors, ...errors(404) },
};

const NumberParams = Type.Object({ id: Id('Phone number id') });

export const AssignBody = Type.Object(
  { organisationId: Id('Own organisation'), agentId: Id('An active VOICE agent of the organisation') },
  { additionalProperties: false },
);
export type AssignBody = Static<typeof AssignBody>;

export const assignAgent = {
  tags: TAGS,
  summary: "Route the number's inbound calls to an agent (MCP tool numbers_assign)",
  description:
    "Not in the spec: Parley's routing route. The agent must be an active VOICE agent of the organisation. For a number " +
    "of a connected carrier account, the number's voice webhook is first pointed at Parley's inbound URL " +
    '(`{PARLEY_PUBLIC_URL}/webhooks/<provider>/voice`; any application or SIP trunk on it is cleared), then the number ' +
    'becomes ASSIGNED. Assigning an ASSIGNED number to another agent replaces its agent. 404 number (active) or agent ' +
    'not found; 400 not a VOICE agent or a paused one; 400/502 the carrier refused or failed (nothing changed).',
  params: NumberParams,
  body: AssignBody,
  response: { 200: Envelope(PhoneNumberRef), ...authErrors, ...errors(404, 502, 503) },
};

export const UnassignQuery = Type.Object({ organisationId: Id('Own organisation') }, { additionalProperties: false });
export type UnassignQuery = Static<typeof UnassignQuery>;

export const unassignAgent = {
  tags: TAGS,
  summary: 'Detach the number from its agent (MCP tool numbers_unassign)',
  description:
    "Not in the spec: Parley's routing route. The number returns to the routing status it had before assignment " +
    '(PURCHASED or READY; a NEEDS_SETUP number that assignment moved to Parley comes back READY). The carrier keeps ' +
    "sending the number's calls to Parley, which answers that no agent takes them. Unassigning an unassigned number " +
    'changes nothing. 404 number not found or not active.',
  params: NumberParams,
  querystring: UnassignQuery,
  response: { 200: Envelope(PhoneNumberRef), ...authErrors, ...errors(404) },
};

export const CallingScopeBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    callingScope: StringEnum(CALLING_SCOPES),
    allowedCountries: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 alpha-2, upper case' }), {
        maxItems: 250,
        uniqueItems: true,
      }),
    ),
  },
  { additionalProperties: false },
);
export type CallingScopeBody = Static<typeof CallingScopeBody>;

/** The most lines a number's cap may name (phone_numbers.max_concurrent_calls, as billing plans' concurrentCalls). */
const MAX_NUMBER_LINES = 10_000;

export const CallLimitBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    maxConcurrentCalls: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_NUMBER_LINES }), Type.Null()], {
      description: 'Calls the number may have live at once, 1 to 10000; null removes the cap',
    }),
  },
  { additionalProperties: false },
);
export type CallLimitBody = Static<typeof CallLimitBody>;

export const setCallLimit = {
  tags: TAGS,
  summary: 'Set how many calls the number may have live at once',
  description:
    "Not in the spec: Parley's per-number line cap of a carrier number, for a number whose carrier or plan gives it a " +
    "fixed number of channels. It holds besides the organisation's plan (concurrentCalls): an outbound call placed " +
    '(POST /voice/session, /voice/callback, a scheduled call, the campaign dialler) while the live calls on the number ' +
    "(either direction) fill it is refused with 409 limit_reached, counted under the number's lock so control planes " +
    'never slip past it together; the campaign dialler dials no more of its contacts than the number has free. ' +
    "null (the default) means no cap of its own. 404 when the number is not the organisation's.",
  params: NumberParams,
  body: CallLimitBody,
  response: { 200: Envelope(PhoneNumberRef), ...authErrors, ...errors(404) },
};

export const setCallingScope = {
  tags: TAGS,
  summary: 'Set where the number may call',
  description:
    "Not in the spec: Parley's calling scope of a carrier number (the spec shows callingScope on SIP configurations). " +
    'POST /voice/session and /voice/callback refuse with 403 a destination outside it. SAME_COUNTRY is the default; ' +
    "allowedCountries counts only with ALLOWED_COUNTRIES and is cleared otherwise. 404 when the number is not the organisation's.",
  params: NumberParams,
  body: CallingScopeBody,
  response: { 200: Envelope(PhoneNumberRef), ...authErrors, ...errors(404) },
};
