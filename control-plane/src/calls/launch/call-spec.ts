/**
 * The call description the engine runs (the CallSpec of v1.engine.dispatch), built here and nowhere else: outbound,
 * websocket, callback, scheduled and inbound calls all go through `buildCallSpec`, so what an agent's call carries
 * (its snapshot, its own tools, the variables' precedence, the limits) is decided once.
 */
import type { AgentSnapshot, CallSpec } from '@parley/engine/protocol';
import type { AgentRecord, StoredTools } from '../../agents/records.ts';
import { toAgentSnapshot } from '../../agents/snapshot.ts';
import { webhookToolSpecs } from '../../agents/function-tools.ts';
import type { KeyRing } from '../../secrets/key-ring.ts';

/** The engine's limits for a call unless master_settings say otherwise. */
export const DEFAULT_MAX_DURATION_MS = 30 * 60_000;
export const DEFAULT_INACTIVITY_MS = 30_000;
/** The longest limit master_settings may ask for, s: a call of four hours is a stuck call. */
const MAX_LIMIT_SECONDS = 4 * 3600;

export interface CallSpecInput {
  callId: string;
  organisationId: string;
  /** The agent as loaded for this launch (not read again). */
  agent: AgentRecord;
  keyRing: KeyRing | undefined;
  direction: CallSpec['direction'];
  participant: { name?: string; phoneNumber?: string | null };
  /** The call's own variables (POST /voice/session customVariables); they win over the agent's defaults. */
  callVariables?: Record<string, unknown>;
  /** The call's own webhook tools, sealed; they replace the agent's. */
  tools?: StoredTools;
  /** POST /voice/session master_settings (maxDurationSeconds, inactivitySeconds). */
  masterSettings?: Record<string, unknown>;
}

export function buildCallSpec(input: CallSpecInput): CallSpec {
  const { agent, keyRing, organisationId, participant } = input;
  const snapshot: AgentSnapshot = {
    ...toAgentSnapshot(agent, keyRing),
    ...(input.tools && { functionTools: webhookToolSpecs(input.tools, keyRing, organisationId) }),
  };
  return {
    callId: input.callId,
    organisationId,
    agent: snapshot,
    direction: input.direction,
    participant: { name: participant.name, phoneNumber: participant.phoneNumber ?? undefined },
    variables: {
      ...agent.customVariables,
      ...input.callVariables,
      ...(participant.name !== undefined && { participantName: participant.name }),
      phoneNumber: participant.phoneNumber ?? null,
    },
    limits: callLimits(input.masterSettings),
  };
}

/** The engine's limits, from master_settings (maxDurationSeconds, inactivitySeconds) when sent. */
export function callLimits(settings: Record<string, unknown> | undefined): CallSpec['limits'] {
  const seconds = (value: unknown, fallbackMs: number) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 1 && value <= MAX_LIMIT_SECONDS
      ? Math.round(value * 1000)
      : fallbackMs;
  return {
    maxDurationMs: seconds(settings?.maxDurationSeconds, DEFAULT_MAX_DURATION_MS),
    inactivityMs: seconds(settings?.inactivitySeconds, DEFAULT_INACTIVITY_MS),
  };
}
