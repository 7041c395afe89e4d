/**
 * An agent three ways: the row (snake_case columns), the state the rules work on (every writable field, stored
 * form), and the record the API returns (spec document 1, Agent). Function tools are in stored form everywhere
 * here: bearer tokens are ciphertext.
 */
import type { FlowDefinition, ResultsConfig } from '@parley/engine/protocol';
import type { AgentType, BuilderMode, Carrier } from './field-schemas.ts';

/** One webhook tool as stored: as sent, except that bearerToken is ciphertext (enc:v1:…). */
export interface StoredTool {
  name?: string;
  description: string;
  parameters?: Record<string, unknown>;
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  bearerToken?: string;
  timeoutMs?: number;
}
export type StoredTools = Record<string, StoredTool>;

/** Every field a client writes, plus the resultsConfig a FLOW agent keeps aside. */
export interface AgentState {
  name: string;
  description: string;
  agentType: AgentType;
  callbackAgentId: string | null;
  agentIdentity: string;
  agentPersonality: string | null;
  agentTask: string | null;
  pronunciation: string | null;
  languageAccent: string | null;
  greetingMessage: string | null;
  closingMessage: string | null;
  escalationMessage: string | null;
  voicemailMessage: string | null;
  language: string;
  gender: string | null;
  voiceProvider: string | null;
  voiceId: string | null;
  voiceSpeed: number;
  sttMode: string | null;
  supportedLanguageGroup: string | null;
  languageSelectionMode: string | null;
  supportedLanguage: string | null;
  timezone: string | null;
  backgroundNoise: string | null;
  backgroundNoiseVolume: number | null;
  customVariables: Record<string, unknown>;
  functionTools: StoredTools;
  contextMemory: Record<string, unknown>;
  handoverData: Record<string, unknown>;
  webCallEnabled: boolean;
  isActive: boolean;
  builderMode: BuilderMode;
  flowDefinition: FlowDefinition | null;
  resultsConfig: ResultsConfig | null;
  /** A FLOW agent's former PROMPT resultsConfig, restored when it switches back; never returned. */
  promptResultsConfig: ResultsConfig | null;
  callingNumber: string | null;
  telephonyProvider: Carrier | null;
}

/** The column of each state field. */
export const COLUMN_OF: Readonly<Record<keyof AgentState, string>> = {
  name: 'name',
  description: 'description',
  agentType: 'agent_type',
  callbackAgentId: 'callback_agent_id',
  agentIdentity: 'agent_identity',
  agentPersonality: 'agent_personality',
  agentTask: 'agent_task',
  pronunciation: 'pronunciation',
  languageAccent: 'language_accent',
  greetingMessage: 'greeting_message',
  closingMessage: 'closing_message',
  escalationMessage: 'escalation_message',
  voicemailMessage: 'voicemail_message',
  language: 'language',
  gender: 'gender',
  voiceProvider: 'voice_provider',
  voiceId: 'voice_id',
  voiceSpeed: 'voice_speed',
  sttMode: 'stt_mode',
  supportedLanguageGroup: 'supported_language_group',
  languageSelectionMode: 'language_selection_mode',
  supportedLanguage: 'supported_language',
  timezone: 'timezone',
  backgroundNoise: 'background_noise',
  backgroundNoiseVolume: 'background_noise_volume',
  customVariables: 'custom_variables',
  functionTools: 'function_tools',
  contextMemory: 'context_memory',
  handoverData: 'handover_data',
  webCallEnabled: 'web_call_enabled',
  isActive: 'is_active',
  builderMode: 'builder_mode',
  flowDefinition: 'flow_definition',
  resultsConfig: 'results_config',
  promptResultsConfig: 'prompt_results_config',
  callingNumber: 'calling_number',
  telephonyProvider: 'telephony_provider',
};

export const STATE_FIELDS = Object.keys(COLUMN_OF) as (keyof AgentState)[];
export const JSON_FIELDS: ReadonlySet<keyof AgentState> = new Set([
  'customVariables',
  'functionTools',
  'contextMemory',
  'handoverData',
  'flowDefinition',
  'resultsConfig',
  'promptResultsConfig',
]);

/** A row of `agents` joined with its creator's name and e-mail. */
export type AgentRow = Record<string, unknown> & {
  id: string;
  organisation_id: string;
  created_by_id: string | null;
  created_by_name: string | null;
  created_by_email: string | null;
  version: number;
  last_used: Date | null;
  total_calls: number;
  created_at: Date;
  updated_at: Date;
};

export interface AgentRecord extends Omit<AgentState, 'promptResultsConfig'> {
  id: string;
  organisationId: string;
  createdById: string | null;
  createdBy: { id: string; name: string; email: string } | null;
  version: number;
  totalCalls: number;
  lastUsed: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** SIP configurations routed to the agent; filled once SIP configuration lands. */
  sipConfigurations: unknown[];
}

export function agentState(row: AgentRow): AgentState {
  const state = {} as Record<keyof AgentState, unknown>;
  for (const field of STATE_FIELDS) state[field] = row[COLUMN_OF[field]];
  return state as unknown as AgentState;
}

/** The state fields a record shows: all but the resultsConfig a FLOW agent keeps aside. */
const RECORD_STATE_FIELDS = STATE_FIELDS.filter((field) => field !== 'promptResultsConfig');

export function agentRecord(row: AgentRow): AgentRecord {
  // Built in one pass: a list reads hundreds of these, and copying an agentState through object rest and spread
  // was a tenth of a page's CPU (bench: `-- mcp`, REST GET /voice/agents).
  const record: Record<string, unknown> = {
    id: row.id,
    organisationId: row.organisation_id,
    createdById: row.created_by_id,
    createdBy:
      row.created_by_id && row.created_by_name !== null
        ? { id: row.created_by_id, name: row.created_by_name, email: row.created_by_email ?? '' }
        : null,
  };
  for (const field of RECORD_STATE_FIELDS) record[field] = row[COLUMN_OF[field]];
  record.version = row.version;
  record.totalCalls = row.total_calls;
  record.lastUsed = row.last_used;
  record.createdAt = row.created_at;
  record.updatedAt = row.updated_at;
  record.sipConfigurations = [];
  return record as unknown as AgentRecord;
}
