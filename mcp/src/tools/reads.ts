/** The REST reads several tools start from: an agent, and a call by its session id or its Call ID. */
import type { ToolContext } from './tool-context.ts';

export interface AgentSummary {
  id: string;
  name: string;
  agentType?: string;
  isActive?: boolean;
  callingNumber?: string | null;
  telephonyProvider?: string | null;
  totalCalls?: number;
  [field: string]: unknown;
}

export interface CallSummary {
  id: string;
  roomName: string;
  [field: string]: unknown;
}

const SESSION_ID = /^[0-9a-f]{24}$/i;

export function getAgent(context: ToolContext, id: string): Promise<AgentSummary> {
  return context.call<AgentSummary>('Agents', { method: 'GET', path: `/voice/agents/${encodeURIComponent(id)}` });
}

/** A call by its record id (24 hex) or by its Call ID (room name). */
export function getCall(context: ToolContext, id: string): Promise<CallSummary> {
  const path = SESSION_ID.test(id)
    ? `/voice-sessions/${id.toLowerCase()}`
    : `/voice-sessions/room/${encodeURIComponent(id)}`;
  return context.call<CallSummary>('Calls', { method: 'GET', path });
}
