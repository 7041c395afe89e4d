/**
 * Route schemas of campaigns (spec document 2, "Campaigns (REST)" and "Webhook processor status"), and of what the
 * spec leaves out and users need: contacts, uploads, start / pause / complete, statistics.
 */
import { Type } from '@sinclair/typebox';
import {
  Envelope,
  Id,
  NullableString,
  NullableTimestamp,
  StringEnum,
  Timestamp,
  authErrors,
  errors,
} from '../../../http/schemas.ts';
import { CAMPAIGN_STATUSES, CONTACT_STATUSES } from '../../../campaigns/records.ts';
import { RESULT_BUCKETS } from '../../../campaigns/campaign-rules.ts';
import {
  AddContactsBody,
  CreateCampaignBody,
  DuplicateCampaignBody,
  MAX_CAMPAIGN_PAGE,
  MAX_CONTACTS_PER_ADD,
  UpdateCampaignBody,
} from '../../../campaigns/types.ts';

export {
  AddContactsBody,
  CreateCampaignBody,
  DuplicateCampaignBody,
  UpdateCampaignBody,
} from '../../../campaigns/types.ts';

const TAGS = ['campaigns'];
export const IdParams = Type.Object({ id: Id('Campaign id') });
const Obj = Type.Record(Type.String(), Type.Unknown());
const NullableObj = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  additionalProperties: true,
});

const FollowUpRules = Type.Object({
  enabled: Type.Boolean(),
  results: Type.Array(StringEnum(RESULT_BUCKETS)),
  maxRounds: Type.Integer(),
  delayDays: Type.Integer(),
  windowDays: Type.Integer(),
  voiceAgentId: NullableString,
  sipConfigurationId: NullableString,
  autoStart: Type.Boolean(),
});

export const Campaign = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: NullableString,
  organisationId: Type.String(),
  createdById: NullableString,
  createdBy: Type.Unsafe<object | null>({
    type: ['object', 'null'],
    properties: { id: { type: 'string' }, name: { type: ['string', 'null'] }, email: { type: ['string', 'null'] } },
  }),
  voiceAgentId: Type.String(),
  voiceAgent: Type.Object({
    id: Type.String(),
    name: NullableString,
    customVariables: Obj,
    callingNumber: NullableString,
    telephonyProvider: NullableString,
  }),
  dialingNumber: NullableString,
  sipConfigurationId: NullableString,
  targetCountryCode: Type.String(),
  callStartTime: Type.String(),
  callEndTime: Type.String(),
  startDate: NullableTimestamp,
  endDate: NullableTimestamp,
  timezone: Type.String(),
  retryCount: Type.Integer(),
  cooldownSeconds: Type.Integer(),
  maxCallDuration: Type.Integer(),
  inactivityDuration: Type.Integer(),
  status: StringEnum(CAMPAIGN_STATUSES),
  pausedReason: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'Why the dialler paused the campaign by itself (the wallet could not pay); null otherwise',
  }),
  totalContacts: Type.Integer(),
  completedCalls: Type.Integer({ description: 'Contacts answered' }),
  failedCalls: Type.Integer({ description: 'Contacts not reached after every try, or not callable' }),
  inProgressCalls: Type.Integer({ description: 'Contacts being called now' }),
  uploadedFileName: NullableString,
  uploadedFileUrl: NullableString,
  dataExtractionSchema: NullableObj,
  followUpRound: Type.Integer(),
  followUpRules: Type.Unsafe<object | null>({ ...FollowUpRules, type: ['object', 'null'] }),
  parentCampaignId: NullableString,
  followUpSettledAt: NullableTimestamp,
  followUpDecidedAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  uploadedAt: NullableTimestamp,
  startedAt: NullableTimestamp,
  pausedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
});

export const createCampaign = {
  tags: TAGS,
  summary: 'Create a DRAFT campaign',
  description:
    'callStartTime must be before callEndTime (HH:MM, in `timezone`, an IANA zone, default UTC). Dates are ISO 8601 or ' +
    "YYYY-MM-DD (a bare date is read in the campaign's zone: startDate as the start of that day, endDate as its end) and may " +
    "not be before today in that zone; endDate not before startDate. A carrier agent's caller number (dialingNumber) must be " +
    "an active carrier-a/-b/-c number of the organisation; default the agent's callingNumber. An agent without a carrier " +
    "dials through the organisation's active OUTBOUND SIP configuration: none is a 404. targetCountryCode (default +1) reads " +
    'contact numbers written without a country code. Defaults: retryCount 2, cooldownSeconds 3600, maxCallDuration 600, ' +
    'inactivityDuration 30. Contacts are added next (POST /campaigns/{id}/contacts or the upload), then it is started.',
  body: CreateCampaignBody,
  response: { 201: Envelope(Campaign), ...authErrors, ...errors(404) },
};

export const listCampaigns = {
  tags: TAGS,
  summary: "The organisation's campaigns, newest first",
  params: Type.Object({ organisationId: Id('Own organisation') }),
  querystring: Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CAMPAIGN_PAGE, default: 20 })),
  }),
  response: {
    200: Envelope(
      Type.Object({
        campaigns: Type.Array(Campaign),
        total: Type.Integer(),
        totalPages: Type.Integer(),
        currentPage: Type.Integer(),
      }),
    ),
    ...authErrors,
  },
};

export const getCampaign = {
  tags: TAGS,
  summary: 'A campaign: configuration and current state (counts read live)',
  params: IdParams,
  response: { 200: Envelope(Campaign), ...authErrors, ...errors(404) },
};

export const updateCampaign = {
  tags: TAGS,
  summary: 'Change a campaign (partial)',
  description:
    'Fields as on create, all optional. startDate/endDate null clears; dialingNumber "" or null clears; targetCountryCode only ' +
    'while the campaign has no contacts (409 otherwise; +91 and 91 are the same); changing voiceAgentId re-checks the caller ' +
    "number against the new agent and, when none is saved and the agent uses a carrier, saves the agent's own; followUpRules " +
    'keys left out keep the current rules. `status` is accepted by the schema and always refused (400): use /start, /pause, ' +
    '/complete. 409 also while a contact upload is running.',
  params: IdParams,
  body: UpdateCampaignBody,
  response: { 200: Envelope(Campaign), ...authErrors, ...errors(404, 409) },
};

export const deleteCampaign = {
  tags: TAGS,
  summary: 'Delete a campaign with its contacts and extracted data (call records stay)',
  description: '400 while IN_PROGRESS (pause or complete first); 409 while busy with a contact upload.',
  params: IdParams,
  response: {
    200: Envelope(Type.Object({ deleted: Type.Literal(true), id: Type.String() })),
    ...authErrors,
    ...errors(404, 409),
  },
};

export const duplicateCampaign = {
  tags: TAGS,
  summary: 'Copy a campaign as a new DRAFT',
  description:
    'Same agent, caller number, schedule, retry settings and extraction schema; follow-up rules are not copied; dates already ' +
    'passed are cleared (scheduleCleared). With includeContacts the contacts are copied as fresh PENDING entries without call ' +
    'history, one per number (copiedContacts). 409 while the source is busy with a contact upload.',
  params: IdParams,
  body: DuplicateCampaignBody,
  response: {
    201: Envelope(
      Type.Composite([Campaign, Type.Object({ copiedContacts: Type.Integer(), scheduleCleared: Type.Boolean() })]),
    ),
    ...authErrors,
    ...errors(404, 409),
  },
};

export const followUpPreview = {
  tags: TAGS,
  summary: 'What a follow-up round would call (read only)',
  description:
    "Each contact's bucket: answered, no_answer (last try rang out), voicemail, not_reached (busy, rejected, failed or never " +
    "reached). Contacts still to be called (pendingContacts) are left out of the buckets. wouldDial counts the stored rules' " +
    'buckets (or the defaults: no_answer, not_reached, voicemail).',
  params: IdParams,
  response: {
    200: Envelope(
      Type.Object({
        campaignId: Type.String(),
        name: Type.String(),
        status: Type.String(),
        timezone: Type.String(),
        followUpRound: Type.Integer(),
        rules: FollowUpRules,
        rulesSource: StringEnum(['stored', 'default'] as const),
        buckets: Type.Object(Object.fromEntries(RESULT_BUCKETS.map((b) => [b, Type.Integer()]))),
        pendingContacts: Type.Integer(),
        wouldDial: Type.Integer(),
        roundsCreated: Type.Array(
          Type.Object({ id: Type.String(), status: Type.String(), followUpRound: Type.Integer() }),
        ),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

const control = (summary: string, description: string) => ({
  tags: TAGS,
  summary,
  description,
  params: IdParams,
  response: { 200: Envelope(Campaign), ...authErrors, ...errors(402, 404, 409) },
});

export const startCampaign = control(
  'Start (or resume) a campaign',
  'DRAFT or PAUSED → IN_PROGRESS, or SCHEDULED while startDate is ahead (the dialler moves it on when the day comes). 400 ' +
    'without contacts, when already running or scheduled, COMPLETED or CANCELLED, or after endDate; 402 when the wallet cannot ' +
    'pay for calls; 409 while a contact upload runs. The dialler then calls each contact inside the daily window, never ' +
    "more at once than the organisation's plan allows (concurrentCalls) nor than the campaign's line takes: its OUTBOUND " +
    "SIP configuration's maxConcurrentCalls, or its carrier number's maxConcurrentCalls when one is set " +
    '(PUT /telephony/numbers/{id}/call-limit).',
);
export const pauseCampaign = control(
  'Pause a campaign',
  'IN_PROGRESS or SCHEDULED → PAUSED: no new call is placed; calls in progress run to their end. 400 in any other state.',
);
export const completeCampaign = control(
  'Mark a campaign complete',
  'IN_PROGRESS or PAUSED → COMPLETED; DRAFT or SCHEDULED (never dialled) → CANCELLED. Contacts not yet called stay PENDING and ' +
    'are not called. 400 when already COMPLETED or CANCELLED. The dialler also completes a campaign itself once every contact ' +
    'is done or endDate has passed.',
);

export const stats = {
  tags: TAGS,
  summary: 'Campaign performance statistics',
  description:
    'Contacts by state, tries made, calls placed and answered (answerRate = answered / placed), answered minutes, and contacts ' +
    'by the outcome of their last call (completed, no_answer, busy, failed, voicemail, …). progress = finished contacts / total.',
  params: IdParams,
  response: {
    200: Envelope(
      Type.Object({
        campaignId: Type.String(),
        status: StringEnum(CAMPAIGN_STATUSES),
        pausedReason: NullableString,
        contacts: Type.Object({
          total: Type.Integer(),
          pending: Type.Integer(),
          calling: Type.Integer(),
          completed: Type.Integer(),
          failed: Type.Integer(),
        }),
        attempts: Type.Integer(),
        callsPlaced: Type.Integer(),
        callsAnswered: Type.Integer(),
        answerRate: Type.Number(),
        averageAnsweredSeconds: Type.Integer(),
        answeredMinutes: Type.Number(),
        outcomes: Type.Record(Type.String(), Type.Integer()),
        progress: Type.Number(),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

const InvalidRows = Type.Array(Type.Object({ row: Type.Integer(), phone: Type.String(), reason: Type.String() }), {
  description:
    'Rows refused, with their 1-based position (files: the spreadsheet row; the header is row 1); at most 1,000 listed',
});

export const addContacts = {
  tags: TAGS,
  summary: `Add up to ${MAX_CONTACTS_PER_ADD} contacts`,
  description:
    "Numbers are stored in E.164; one written without a country code is read with the campaign's targetCountryCode " +
    '(libphonenumber). A number the campaign already has, or one twice in the request, is skipped and counted in duplicates; a ' +
    'number that is not a valid phone number is listed in invalidRows, and the other rows are still added. Nothing is removed. ' +
    '400 when the campaign is COMPLETED or CANCELLED.',
  params: IdParams,
  body: AddContactsBody,
  response: {
    201: Envelope(
      Type.Object({
        received: Type.Integer(),
        added: Type.Integer(),
        duplicates: Type.Integer(),
        invalid: Type.Integer(),
        invalidRows: InvalidRows,
        totalContacts: Type.Integer(),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const Contact = Type.Object({
  id: Type.String(),
  phone: Type.String({ description: 'E.164' }),
  name: NullableString,
  variables: Obj,
  status: StringEnum(CONTACT_STATUSES, {
    description:
      'PENDING (to be called; nextAttemptAt when a retry waits), CALLING, COMPLETED (answered), FAILED (not reached after every try)',
  }),
  attempts: Type.Integer(),
  nextAttemptAt: NullableTimestamp,
  lastOutcome: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'Outcome of the last call: completed, no_answer, busy, failed, voicemail, rejected, …',
  }),
  failureReason: NullableString,
  callId: NullableString,
  roomName: NullableString,
  callStatus: NullableString,
  callDuration: Type.Unsafe<number | null>({ type: ['integer', 'null'], description: 'ms' }),
  extractedData: NullableObj,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const listContacts = {
  tags: TAGS,
  summary: "A campaign's contacts with their call status, in the order added",
  params: IdParams,
  querystring: Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    status: Type.Optional(StringEnum(CONTACT_STATUSES)),
  }),
  response: {
    200: Envelope(
      Type.Object({
        contacts: Type.Array(Contact),
        total: Type.Integer({ description: 'Exact count of contacts matching the filter' }),
        totalPages: Type.Integer(),
        currentPage: Type.Integer(),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const exportContacts = {
  tags: TAGS,
  summary: "A campaign's contacts as CSV, with the data extracted from their calls",
  description:
    'UTF-8 with a byte order mark. Columns: Phone, Name, Status, Attempts, Last outcome, Failure reason, Call ID, one column ' +
    'per dataExtractionSchema field (its label; yes/no as Yes or No), Variables (JSON). A cell a spreadsheet would run as a ' +
    'formula is prefixed with an apostrophe.',
  params: IdParams,
  response: {
    200: { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } },
    ...authErrors,
    ...errors(404),
  },
};

export const Upload = Type.Object({
  id: Type.String(),
  campaignId: Type.String(),
  fileName: Type.String(),
  format: StringEnum(['csv', 'xlsx'] as const),
  status: StringEnum(['PENDING', 'PROCESSING', 'DONE', 'FAILED'] as const),
  result: Type.Unsafe<object | null>({
    type: ['object', 'null'],
    additionalProperties: true,
    description: 'DONE: received, added, duplicates, invalid, invalidRows, columns {phone, name, variables}',
  }),
  error: NullableString,
  createdAt: Timestamp,
  finishedAt: NullableTimestamp,
});

export const uploadContacts = {
  tags: TAGS,
  summary: 'Upload a CSV or XLSX file of contacts (read in the background)',
  description:
    'The request body is the file itself, Content-Type text/csv or application/vnd.openxmlformats-officedocument.spreadsheetml.sheet ' +
    '(at most 4 MB; the first sheet of a workbook). The first row names the columns: phoneColumn (default a column named phone, ' +
    'phone number, mobile, number, …), nameColumn (default name, full name, …), variableColumns (comma-separated; default every ' +
    "other column). Rows follow the add route's rules. Answers 202 with the upload; poll GET /campaigns/{id}/uploads/{uploadId}. " +
    'While it runs the campaign is busy: 409 on a second upload, delete, duplicate, start or a country change.',
  params: IdParams,
  querystring: Type.Object({
    fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    phoneColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    nameColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    variableColumns: Type.Optional(Type.String({ maxLength: 2000 })),
  }),
  response: { 202: Envelope(Upload), ...authErrors, ...errors(404, 409) },
};

export const getUpload = {
  tags: TAGS,
  summary: 'A contact upload and its result',
  params: Type.Object({ id: Id('Campaign id'), uploadId: Id('Upload id') }),
  response: { 200: Envelope(Upload), ...authErrors, ...errors(404) },
};

export const diallerStatus = {
  tags: TAGS,
  summary: 'Health of the campaign dialler on the answering server',
  description:
    'Not organisation-specific. status RUNNING while the dialler job runs on this server (STOPPED otherwise, e.g. a server ' +
    'started without jobs); nextRunAt is when its next pass begins; lastRunAt, lastError and callsPlaced (since start) help ' +
    'tell a stalled dialler from an idle one.',
  response: {
    200: Type.Object({
      success: Type.Literal(true),
      status: StringEnum(['RUNNING', 'STOPPED'] as const),
      message: Type.String(),
      nextRunAt: NullableTimestamp,
      lastRunAt: NullableTimestamp,
      lastError: NullableString,
      callsPlaced: Type.Integer(),
    }),
    ...authErrors,
  },
};

export type ListQuery = { page?: number; limit?: number };
export type ContactsQuery = { page?: number; limit?: number; status?: (typeof CONTACT_STATUSES)[number] };
export type UploadQuery = { fileName?: string; phoneColumn?: string; nameColumn?: string; variableColumns?: string };
