/**
 * The agent as the engine receives it at dispatch (`AgentSnapshot` of engine/src/protocol/call.ts): the stored
 * fields map onto it one to one, except that function tools become the engine's WebhookToolSpec list with tokens
 * in clear, and handoverData gives its handover number. The call dispatch (telephony and voice sessions) uses this.
 */
import type { AgentSnapshot } from '@parley/engine/protocol';
import type { KeyRing } from '../secrets/key-ring.ts';
import { handoverNumber } from './flow-rules.ts';
import { webhookToolSpecs } from './function-tools.ts';
import type { AgentRecord } from './records.ts';

export function toAgentSnapshot(agent: AgentRecord, ring: KeyRing | undefined): AgentSnapshot {
  return {
    id: agent.id,
    version: agent.version,
    name: agent.name,
    agentType: agent.agentType,
    builderMode: agent.builderMode,
    agentIdentity: agent.agentIdentity,
    agentPersonality: agent.agentPersonality,
    agentTask: agent.agentTask,
    pronunciation: agent.pronunciation,
    languageAccent: agent.languageAccent,
    greetingMessage: agent.greetingMessage,
    closingMessage: agent.closingMessage,
    escalationMessage: agent.escalationMessage,
    voicemailMessage: agent.voicemailMessage,
    language: agent.language,
    voiceProvider: agent.voiceProvider,
    voiceId: agent.voiceId,
    voiceSpeed: agent.voiceSpeed,
    sttProvider: null,
    sttMode: agent.sttMode,
    customVariables: agent.customVariables,
    functionTools: webhookToolSpecs(agent.functionTools, ring, agent.organisationId),
    contextMemory: agent.contextMemory,
    // A PROMPT agent's saved flow is a draft: the engine runs a flow only for FLOW agents.
    flowDefinition: agent.builderMode === 'FLOW' ? agent.flowDefinition : null,
    handoverNumber: handoverNumber(agent.handoverData),
  };
}
