/**
 * FLOW builder mode (spec document 2, Agents rules 3–5): who may have a flow, when it is checked against the
 * agent, and how resultsConfig follows it. The flow's schema, validator and results derivation are the engine's
 * (`@parley/engine/flow`): the control plane checks a flow exactly as the engine will run it.
 */
import { isDeepStrictEqual } from 'node:util';
import { deriveResultsConfig, validateFlow, type FlowProblem, type FlowValidationContext } from '@parley/engine/flow';
import { CATALOGUE_VARIABLES, KNOWLEDGE_BASE_VARIABLES, type FlowDefinition } from '@parley/engine/protocol';
import { ApiError, badField } from '../errors.ts';
import { normaliseResultsConfig } from './results-config.ts';
import type { ResultsConfigInput } from './field-schemas.ts';
import type { AgentState } from './records.ts';

/** The organisation feature that opens FLOW agents (docs/architecture.md §2). */
export const FLOW_FEATURE = 'flow_agents';
/** Changes that alter what a flow may use, so a FLOW agent's flow is checked again (spec rule 4). */
const FLOW_INPUTS = ['flowDefinition', 'builderMode', 'functionTools', 'customVariables', 'handoverData'] as const;

/** A rejected flow: a 400 whose body lists every problem in `flowErrors` (spec document 2). */
export class FlowRejectedError extends ApiError {
  readonly flowErrors: FlowProblem[];

  constructor(flowErrors: FlowProblem[]) {
    const count = flowErrors.length === 1 ? '1 problem' : `${flowErrors.length} problems`;
    const message = `The call flow was rejected (${count}): ${flowErrors.map((p) => `${p.path || '/'} ${p.message}`).join('; ')}`;
    super('validation_failed', message, {
      fields: [{ field: 'flowDefinition', message: `has ${count}, listed in flowErrors` }],
    });
    this.flowErrors = flowErrors;
  }
}

function listsSomething(value: unknown): boolean {
  if (typeof value === 'string') return value.trim() !== '';
  return (
    Array.isArray(value) &&
    value.some((item) => (typeof item === 'string' ? item.trim() !== '' : item !== null && item !== undefined))
  );
}

export function hasKnowledgeBase(customVariables: Record<string, unknown>): boolean {
  return KNOWLEDGE_BASE_VARIABLES.some((key) => listsSomething(customVariables[key]));
}

export function hasCatalogue(customVariables: Record<string, unknown>): boolean {
  return CATALOGUE_VARIABLES.some((key) => listsSomething(customVariables[key]));
}

/** Where a handover sends the call: handoverData.handover_number, unless handover_enabled is false. */
export function handoverNumber(handoverData: Record<string, unknown>): string | null {
  if (handoverData.handover_enabled === false) return null;
  const number = handoverData.handover_number;
  return typeof number === 'string' && number.trim() ? number.trim() : null;
}

/** What a flow is checked against: the agent that will run it. */
export function flowContext(state: AgentState): FlowValidationContext {
  return {
    toolKeys: Object.keys(state.functionTools),
    hasKnowledgeBase: hasKnowledgeBase(state.customVariables),
    hasCatalogue: hasCatalogue(state.customVariables),
    handoverNumber: handoverNumber(state.handoverData),
  };
}

export interface FlowChange {
  /** The stored agent; undefined on create. */
  prev: AgentState | undefined;
  /** The agent as it will be saved; its resultsConfig fields are set here. */
  next: AgentState;
  /** The request body: which fields were sent, and the sent flow and resultsConfig as they came. */
  body: { flowDefinition?: unknown; resultsConfig?: ResultsConfigInput | null } & Record<string, unknown>;
  features: readonly string[];
}

function flowChanged({ prev, body }: FlowChange): boolean {
  return body.flowDefinition !== undefined && !isDeepStrictEqual(body.flowDefinition, prev?.flowDefinition ?? null);
}

/**
 * Refusals that come before any validation of content: a CHAT agent given a flow (400), and FLOW without the
 * feature (403) — turning an agent into FLOW, or changing or deleting its flow, needs Flow Agents.
 */
export function assertFlowAllowed(change: FlowChange): void {
  const { prev, next, body, features } = change;
  const becomesFlow = next.builderMode === 'FLOW' && prev?.builderMode !== 'FLOW';
  if ((becomesFlow || flowChanged(change)) && !features.includes(FLOW_FEATURE)) {
    throw new ApiError('feature_disabled', 'Flow Agents is not enabled for this organisation');
  }
  if (next.agentType === 'CHAT') {
    if (next.builderMode === 'FLOW')
      throw badField('builderMode', 'FLOW is for VOICE agents: a CHAT agent cannot have a call flow');
    if (next.flowDefinition !== null) {
      const hint = body.flowDefinition === undefined ? '; send flowDefinition null to delete the saved flow' : '';
      throw badField('flowDefinition', `a CHAT agent cannot have a call flow${hint}`);
    }
  }
}

/**
 * Checks the flow when it must be checked, and sets resultsConfig: derived from the flow for a FLOW agent (a sent
 * one is ignored), the sent or restored one for a PROMPT agent. Switching to FLOW keeps the PROMPT resultsConfig
 * aside; switching back restores it.
 */
export function applyFlowRules(change: FlowChange): void {
  const { prev, next, body } = change;
  const wasFlow = prev?.builderMode === 'FLOW';
  const isFlow = next.builderMode === 'FLOW';
  if (isFlow && next.flowDefinition === null) {
    throw badField(
      'flowDefinition',
      body.flowDefinition === null
        ? 'cannot be deleted while builderMode is FLOW: switch the agent to PROMPT first'
        : 'is required when builderMode is FLOW',
    );
  }
  const recheck = isFlow
    ? !wasFlow || FLOW_INPUTS.some((field) => body[field] !== undefined)
    : flowChanged(change) && next.flowDefinition !== null;
  if (recheck) {
    const problems = validateFlow(next.flowDefinition, flowContext(next));
    if (problems.length) throw new FlowRejectedError(problems);
  }
  if (isFlow) {
    if (!wasFlow) next.promptResultsConfig = prev ? prev.resultsConfig : null;
    next.resultsConfig = deriveResultsConfig(next.flowDefinition as FlowDefinition);
    return;
  }
  if (wasFlow) {
    next.resultsConfig = prev.promptResultsConfig;
    next.promptResultsConfig = null;
  }
  if (body.resultsConfig !== undefined) next.resultsConfig = normaliseResultsConfig(body.resultsConfig);
}
