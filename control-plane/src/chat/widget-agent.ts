/**
 * The chat agent a widget token asks about (spec document 2, Widget): a token opens only the agent it is bound to
 * (403 for any other — another organisation's included, so nothing is learnt about agents it cannot use), which
 * must still exist (404) and be a CHAT agent (400).
 */
import { findAgent } from '../agents/repository.ts';
import { agentRecord, type AgentRecord } from '../agents/records.ts';
import type { Principal } from '../auth/principal.ts';
import type { Queryable } from '../db/database.ts';
import { ApiError, badField, notFound } from '../errors.ts';

export async function widgetAgent(sql: Queryable, principal: Principal, agentId: string): Promise<AgentRecord> {
  if (principal.kind !== 'widget' || principal.agentId !== agentId)
    throw new ApiError('forbidden', 'This widget token is bound to a different agent');
  const row = await findAgent(sql, principal.organisationId, agentId);
  if (!row) throw notFound('Agent');
  const agent = agentRecord(row);
  if (agent.agentType !== 'CHAT') throw badField('agentId', 'must be a CHAT agent');
  return agent;
}
