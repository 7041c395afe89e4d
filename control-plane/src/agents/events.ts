/**
 * What other parts of the control plane hear about agents: the greeting audio cache regenerates on every save
 * (spec document 2: "creating an agent starts generating its cached greeting audio in the background", "every
 * update regenerates" it) and drops an agent's audio when it is deleted. Listeners are told after the change is
 * committed; they run in the background, and a listener that fails is logged, never the request's failure.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { AgentRecord, AgentState } from './records.ts';

export type AgentSaveKind = 'created' | 'updated' | 'duplicated';

export interface AgentSavedEvent {
  kind: AgentSaveKind;
  /** The agent as saved (function tools in stored form: tokens encrypted). */
  agent: AgentRecord;
  /** Fields whose value changed (every field on created and duplicated); empty for an update that changed nothing. */
  changedFields: (keyof AgentState)[];
}

export interface AgentDeletedEvent {
  agentId: string;
  organisationId: string;
}

/** Hooks the app passes to the agent routes (AppDependencies). */
export interface AgentListeners {
  onAgentSaved?: (event: AgentSavedEvent) => void | Promise<void>;
  onAgentDeleted?: (event: AgentDeletedEvent) => void | Promise<void>;
}

/** Calls a listener without letting it delay or fail the request. */
export function notify<E>(
  listener: ((event: E) => void | Promise<void>) | undefined,
  event: E,
  log: FastifyBaseLogger,
): void {
  if (!listener) return;
  const reportFailure = (error: unknown) => log.error({ err: error }, 'agent listener failed');
  try {
    const result = listener(event);
    if (result instanceof Promise) result.catch(reportFailure);
  } catch (error) {
    reportFailure(error);
  }
}
