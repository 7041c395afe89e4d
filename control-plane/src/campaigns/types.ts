/**
 * The bodies of the campaign routes (spec document 2, "Campaigns (REST)"), as TypeBox schemas: the validator, the
 * OpenAPI and the service's input types in one. Rules beyond a schema's reach (window order, time zone, dates in
 * the campaign's zone, followUpRules) are campaign-rules.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Id, NullableString, StringEnum } from '../http/schemas.ts';
import { CAMPAIGN_STATUSES } from './records.ts';

/** Contacts one add request may carry (spec document 3: "Contacts per add: up to 500"). */
export const MAX_CONTACTS_PER_ADD = 500;
/** Campaigns per list page at most (spec document 3: "campaigns 1..100"). */
export const MAX_CAMPAIGN_PAGE = 100;
const HHMM = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

const Hhmm = (description: string) => Type.String({ pattern: HHMM, description: `${description} (HH:MM, 24-hour)` });
const DateText = (description: string) =>
  Type.Unsafe<string | null>({
    type: ['string', 'null'],
    maxLength: 40,
    description: `${description}: ISO 8601 or YYYY-MM-DD (a bare date is read in the campaign's time zone); null clears on update`,
  });
const FollowUpRulesInput = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  description:
    'enabled (default true), results (default no_answer, not_reached, voicemail; buckets: answered, no_answer, ' +
    'voicemail, not_reached), maxRounds (1..5, default 1), delayDays (0..90, default 1), windowDays (1..90, default 7), ' +
    'voiceAgentId, sipConfigurationId, autoStart (default true). Booleans also accept "true", "false", 1, 0. Omitted ' +
    'keys take the defaults (create) or keep the current rules (update); null removes the rules',
});

const settings = {
  description: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 2000 })),
  targetCountryCode: Type.Optional(
    Type.String({
      maxLength: 6,
      description: 'Dial code numbers without one are read in, e.g. +1 or 91 (default +1); +91 and 91 are the same',
    }),
  ),
  dialingNumber: Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      maxLength: 32,
      description:
        "Caller number (E.164). Carrier agents: an active carrier-a/-b/-c number of the organisation; default the agent's callingNumber. Empty or null clears (update)",
    }),
  ),
  retryCount: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 10, description: 'Further tries of a contact not reached (default 2)' }),
  ),
  cooldownSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 2_592_000,
      description: 'Wait between tries of one contact, s (default 3600)',
    }),
  ),
  maxCallDuration: Type.Optional(
    Type.Integer({ minimum: 10, maximum: 14_400, description: 'Longest call, s (default 600)' }),
  ),
  inactivityDuration: Type.Optional(
    Type.Integer({ minimum: 5, maximum: 3600, description: 'Silence before a call ends, s (default 30)' }),
  ),
  startDate: Type.Optional(DateText('First day of calling')),
  endDate: Type.Optional(
    DateText('Last day of calling; not before today in the campaign time zone nor before startDate'),
  ),
  timezone: Type.Optional(
    Type.String({ maxLength: 64, description: 'IANA time zone of the call window (default UTC)' }),
  ),
  dataExtractionSchema: Type.Optional(
    Type.Unsafe<Record<string, unknown> | null>({
      type: ['object', 'null'],
      description:
        'Values to extract from each answered call: { fields: [{ key, label, type (number, phone, choice, text, yes_no), choices? }] }',
    }),
  ),
  followUpRules: Type.Optional(FollowUpRulesInput),
};

export const CreateCampaignBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    organisationId: Id('Own organisation'),
    voiceAgentId: Id('A live VOICE agent of the organisation'),
    callStartTime: Hhmm('Daily window start, before callEndTime'),
    callEndTime: Hhmm('Daily window end'),
    ...settings,
  },
  { additionalProperties: false },
);
export type CreateCampaignBody = Static<typeof CreateCampaignBody>;

export const UpdateCampaignBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    voiceAgentId: Type.Optional(Id('A live VOICE agent of the organisation; re-checks the caller number')),
    callStartTime: Type.Optional(Hhmm('Daily window start')),
    callEndTime: Type.Optional(Hhmm('Daily window end')),
    status: Type.Optional(
      StringEnum(CAMPAIGN_STATUSES, {
        description: 'Accepted by the schema and always refused (400): use /start, /pause and /complete',
      }),
    ),
    ...settings,
  },
  { additionalProperties: false },
);
export type UpdateCampaignBody = Static<typeof UpdateCampaignBody>;

export const DuplicateCampaignBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "Default: the source's name + ' (copy)'" }),
    ),
    includeContacts: Type.Optional(
      Type.Unsafe<boolean | string | number>({
        type: ['boolean', 'string', 'integer'],
        description: 'Copy the contacts as fresh PENDING entries (also "true", "false", 1, 0); default false',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DuplicateCampaignBody = Static<typeof DuplicateCampaignBody>;

export const ContactInput = Type.Object(
  {
    phone: Type.String({
      minLength: 1,
      maxLength: 40,
      description: "E.164, or a national number read with the campaign's targetCountryCode",
    }),
    name: Type.Optional(NullableString),
    variables: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Filled into the agent’s {{placeholders}} for this contact',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ContactInput = Static<typeof ContactInput>;

export const AddContactsBody = Type.Object(
  { contacts: Type.Array(ContactInput, { minItems: 1, maxItems: MAX_CONTACTS_PER_ADD }) },
  { additionalProperties: false },
);
export type AddContactsBody = Static<typeof AddContactsBody>;
