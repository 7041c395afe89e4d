/**
 * How a request body becomes the agent to save: defaults on create; on update only sent fields change (spec:
 * partial update), with the spec's special cases — handoverData shallow-merged with null removing a key, an empty
 * or null text clearing it, and an empty agentTask sent to a FLOW agent keeping the stored task.
 */
import { isDeepStrictEqual } from 'node:util';
import type { FlowDefinition } from '@parley/engine/protocol';
import type { AgentState, StoredTools } from './records.ts';
import type { CreateAgentBody, UpdateAgentBody } from './types.ts';

export const DEFAULT_LANGUAGE = 'en-US';

const DEFAULT_STATE: AgentState = {
  name: '',
  description: '',
  agentType: 'VOICE',
  callbackAgentId: null,
  agentIdentity: '',
  agentPersonality: null,
  agentTask: null,
  pronunciation: null,
  languageAccent: null,
  greetingMessage: null,
  closingMessage: null,
  escalationMessage: null,
  voicemailMessage: null,
  language: DEFAULT_LANGUAGE,
  gender: null,
  voiceProvider: null,
  voiceId: null,
  voiceSpeed: 1,
  sttMode: null,
  supportedLanguageGroup: null,
  languageSelectionMode: null,
  supportedLanguage: null,
  timezone: null,
  backgroundNoise: null,
  backgroundNoiseVolume: null,
  customVariables: {},
  functionTools: {},
  contextMemory: {},
  handoverData: {},
  webCallEnabled: false,
  isActive: true,
  builderMode: 'PROMPT',
  flowDefinition: null,
  resultsConfig: null,
  promptResultsConfig: null,
  callingNumber: null,
  telephonyProvider: null,
};

/** Text fields where an empty string means "none", stored as null. */
const CLEARABLE_TEXT = [
  'agentPersonality',
  'pronunciation',
  'languageAccent',
  'greetingMessage',
  'closingMessage',
  'escalationMessage',
  'voicemailMessage',
  'voiceProvider',
  'voiceId',
  'supportedLanguage',
  'timezone',
  'backgroundNoise',
  'callingNumber',
] as const;

/** Fields copied as sent (null included). */
const AS_SENT = [
  'name',
  'description',
  'agentType',
  'callbackAgentId',
  'agentIdentity',
  'language',
  'gender',
  'voiceSpeed',
  'sttMode',
  'supportedLanguageGroup',
  'languageSelectionMode',
  'backgroundNoiseVolume',
  'webCallEnabled',
  'builderMode',
  'telephonyProvider',
] as const;

type Body = CreateAgentBody | UpdateAgentBody;

export function stateForCreate(body: CreateAgentBody, tools: StoredTools | undefined): AgentState {
  return apply(structuredClone(DEFAULT_STATE), body, tools, undefined);
}

export function stateForUpdate(prev: AgentState, body: UpdateAgentBody, tools: StoredTools | undefined): AgentState {
  return apply(structuredClone(prev), body, tools, prev);
}

function apply(
  state: AgentState,
  body: Body,
  tools: StoredTools | undefined,
  prev: AgentState | undefined,
): AgentState {
  const sent = body as Record<string, unknown>;
  const target = state as unknown as Record<string, unknown>;
  for (const field of AS_SENT) if (sent[field] !== undefined) target[field] = sent[field];
  for (const field of CLEARABLE_TEXT) {
    const value = sent[field];
    if (value !== undefined) target[field] = value === '' ? null : value;
  }
  if ('isActive' in body && body.isActive !== undefined) state.isActive = body.isActive;
  if (body.agentTask !== undefined) {
    const empty = body.agentTask === null || body.agentTask.trim() === '';
    // Spec rule 3: a FLOW agent runs its flow, not a task, so clients that blank the task keep what was there.
    if (!(empty && prev?.builderMode === 'FLOW')) state.agentTask = empty ? null : body.agentTask;
  }
  if (body.customVariables !== undefined) state.customVariables = body.customVariables ?? {};
  if (body.contextMemory !== undefined) state.contextMemory = body.contextMemory ?? {};
  if (body.handoverData !== undefined)
    state.handoverData = mergeHandoverData(prev ? state.handoverData : {}, body.handoverData);
  if (tools !== undefined) state.functionTools = tools;
  if (body.flowDefinition !== undefined) state.flowDefinition = body.flowDefinition as FlowDefinition | null;
  return state;
}

/** Shallow merge: sent keys replace stored ones, a key sent as null is removed, and null as a whole clears all. */
export function mergeHandoverData(
  stored: Record<string, unknown>,
  sent: Record<string, unknown> | null,
): Record<string, unknown> {
  if (sent === null) return {};
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(sent)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** The fields whose value differs between two states. */
export function changedFields(prev: AgentState, next: AgentState): (keyof AgentState)[] {
  // Deep equality ignores key order: jsonb hands objects back with their keys reordered.
  return (Object.keys(next) as (keyof AgentState)[]).filter((field) => !isDeepStrictEqual(prev[field], next[field]));
}
