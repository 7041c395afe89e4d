/**
 * A call record two ways: the row (snake_case columns of call_records) and the record the API returns (spec
 * document 1, "Call record"), plus the vocabulary both use: statuses, outcome classes, sources.
 */

export const CALL_TYPES = ['sip', 'web', 'chat', 'websocket'] as const;
export type CallType = (typeof CALL_TYPES)[number];
export const CALL_DIRECTIONS = ['INBOUND', 'OUTBOUND'] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

/**
 * callStatus values (the spec shows only COMPLETED): null is a record only. SCHEDULED and QUEUED wait to be placed;
 * INITIATED, RINGING and IN_PROGRESS are live; COMPLETED, FAILED and CANCELLED are final.
 */
export const CALL_STATUSES = [
  'SCHEDULED',
  'QUEUED',
  'INITIATED',
  'RINGING',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
/** Statuses of a call an engine is (or should be) running. */
export const LIVE_STATUSES: readonly CallStatus[] = ['INITIATED', 'RINGING', 'IN_PROGRESS'];
/** Statuses of calls that were never placed and are not yet due to be: left out of lists and results. */
export const UNPLACED_STATUSES: readonly CallStatus[] = ['SCHEDULED', 'QUEUED', 'CANCELLED'];

/** Outcome classes of the call-history `outcome` filter (and of the stats): the generated column outcome_class. */
export const OUTCOME_CLASSES = ['answered', 'no_answer', 'busy', 'rejected', 'voicemail', 'failed'] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];
/** Outcome classes counted as "not answered" by the stats. */
export const NOT_ANSWERED_CLASSES: readonly OutcomeClass[] = ['no_answer', 'busy', 'rejected', 'voicemail'];

/** How a call came about: the results' `source` filter. */
export const CALL_SOURCES = ['campaign', 'inbound', 'api', 'manual', 'widget', 'unknown'] as const;

export type CallSource = (typeof CALL_SOURCES)[number];

export type AnalysisStatus = 'pending' | 'done' | 'failed' | 'skipped';

/** A call's result for its agent's resultsConfig (spec: Result row), as stored in agent_result. */
export interface AgentResult {
  outcomeKey: string;
  outcomeLabel: string;
  captured: Record<string, unknown>;
  /** flow: the FLOW agent's own result event; analysis: the post-call AI analysis of a PROMPT agent. */
  resultSource: 'flow' | 'analysis';
  flowPath: string[] | null;
  decidedAt: string;
}

/** One entry of `actions.items`: what happened during the call besides talking. */
export type ActionItem =
  | { type: 'tool_call'; name: string; ok: boolean; durationMs: number; atMs: number }
  | { type: 'dtmf'; digit: string; atMs: number };

export interface CallActions {
  /** A one-line summary of the items, e.g. "2 tool calls (1 failed); keys pressed: 1 2". Empty when none. */
  tracking: string;
  items: ActionItem[];
}

export interface CallRow {
  id: string;
  organisation_id: string;
  agent_id: string;
  room_name: string;
  campaign_id: string | null;
  participant_name: string;
  phone_number: string | null;
  created_by_id: string | null;
  custom_variables: Record<string, unknown>;
  scheduled_time: Date | null;
  scheduled_status: string | null;
  calling_number: string | null;
  meta_data: Record<string, unknown>;
  call_type: CallType;
  call_direction: CallDirection;
  call_status: CallStatus | null;
  call_duration: number | null;
  call_outcome: string | null;
  call_outcome_detail: string | null;
  is_billed: boolean;
  billed_at: Date | null;
  agent_name: string;
  greeting_message: string | null;
  recording_url: string | null;
  recording_path: string | null;
  overview: Record<string, unknown> | null;
  actions: CallActions;
  agent_result: AgentResult | null;
  latency: Record<string, unknown> | null;
  source: CallSource;
  use_case: string | null;
  analysis_status: AnalysisStatus | null;
  analysis_error: string | null;
  max_duration_ms: number | null;
  /** The engine's one-use stream URL of an outbound call until the carrier's answer takes it (migration 009). */
  media_stream_url: string | null;
  /** The call's own webhook tools, bearer tokens sealed (POST /voice/session functionTools). */
  function_tools: unknown;
  engine_id: string | null;
  /** The SIP configuration the call went over (migration 013); null for carrier and websocket calls. */
  sip_configuration_id: string | null;
  dispatched_at: Date | null;
  answered_at: Date | null;
  ended_at: Date | null;
  last_event_at: Date | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date;
  outcome_class: OutcomeClass | null;
  use_case_key: string;
}

/** The call's room name (its Call ID). */
export function roomNameFor(id: string): string {
  return `call-${id}`;
}

/** The call record of the API. */
export interface CallRecord {
  id: string;
  roomName: string;
  orgId: string;
  agentId: string;
  campaignId: string | null;
  participantName: string;
  phoneNumber: string | null;
  createdById: string | null;
  createdAt: Date;
  endedAt: Date | null;
  customVariables: Record<string, unknown>;
  scheduledTime: Date | null;
  scheduledStatus: string | null;
  callingNumber: string | null;
  metaData: Record<string, unknown>;
  callType: CallType;
  callDirection: CallDirection;
  callStatus: CallStatus | null;
  callDuration: number | null;
  callOutcome: string | null;
  callOutcomeDetail: string | null;
  isBilled: boolean;
  billedAt: Date | null;
  agentName: string;
  greetingMessage: string | null;
  recordingUrl: string | null;
  overview: Record<string, unknown> | null;
  actions: CallActions;
  agentResult: AgentResult | null;
  source: CallSource;
  useCase: string | null;
  answeredAt: Date | null;
  startedAt: Date;
  updatedAt: Date;
  latency: Record<string, unknown> | null;
  analysisStatus: AnalysisStatus | null;
  analysisError: string | null;
  organisation?: { id: string; name: string; type: string };
  agent?: { id: string; name: string; language: string; gender: string | null };
  createdBy?: { id: string; name: string; email: string } | null;
}

export function callRecord(row: CallRow): CallRecord {
  return {
    id: row.id,
    roomName: row.room_name,
    orgId: row.organisation_id,
    agentId: row.agent_id,
    campaignId: row.campaign_id,
    participantName: row.participant_name,
    phoneNumber: row.phone_number,
    createdById: row.created_by_id,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    customVariables: row.custom_variables,
    scheduledTime: row.scheduled_time,
    scheduledStatus: row.scheduled_status,
    callingNumber: row.calling_number,
    metaData: row.meta_data,
    callType: row.call_type,
    callDirection: row.call_direction,
    callStatus: row.call_status,
    callDuration: row.call_duration,
    callOutcome: row.call_outcome,
    callOutcomeDetail: row.call_outcome_detail,
    isBilled: row.is_billed,
    billedAt: row.billed_at,
    agentName: row.agent_name,
    greetingMessage: row.greeting_message,
    recordingUrl: row.recording_url,
    overview: row.overview,
    actions: row.actions,
    agentResult: row.agent_result,
    source: row.source,
    useCase: row.use_case,
    answeredAt: row.answered_at,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    latency: row.latency,
    analysisStatus: row.analysis_status,
    analysisError: row.analysis_error,
  };
}

/** Spec document 1: participantName is stored with its first letter upper case and the rest lower case. */
export function capitaliseName(name: string): string {
  const trimmed = name.trim();
  const [first = '', ...rest] = [...trimmed];
  return first.toUpperCase() + rest.join('').toLowerCase();
}
