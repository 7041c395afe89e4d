/**
 * POST /widget/bootstrap (spec document 2, Widget): what the widget needs to show the agent — its metadata, the
 * variables merged over the agent's defaults — and, when the page names a conversation (`roomName`), that
 * conversation opened or resumed with a session token valid one hour. A conversation is a call record with
 * callType chat and source widget; its greeting is its first transcript line, so a reload shows it again.
 */
import type { AgentRecord } from '../agents/records.ts';
import type { Principal } from '../auth/principal.ts';
import { createCall } from '../calls/repository/call-repository.ts';
import { findCallByRoomName } from '../calls/repository/launch-repository.ts';
import type { Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError, badField } from '../errors.ts';
import type { KeyRing } from '../secrets/key-ring.ts';
import { fillTemplate } from '@parley/engine/protocol';
import { insertLine } from './chat-repository.ts';
import { CHAT_SESSION_TOKEN_TTL_MS, signChatSession } from './chat-session-token.ts';
import { widgetAgent } from './widget-agent.ts';

export interface BootstrapRequest {
  agentId: string;
  participantName?: string;
  phoneNumber?: string;
  roomName?: string;
  customVariables?: Record<string, unknown>;
}

/** A function tool as a public page may see it: what it is for, never where it points or its credentials. */
export interface PublicTool {
  name: string;
  description: string;
}

export interface BootstrapMetadata {
  orgId: string;
  agentId: string;
  agentName: string;
  agentIdentity: string;
  agentTask: string | null;
  agentPersonality: string | null;
  pronunciation: string | null;
  escalationMessage: string | null;
  greetingMessage: string | null;
  closingMessage: string | null;
  voicemailMessage: string | null;
  agentLanguage: string;
  callType: 'chat';
  callDirection: 'INBOUND';
  channel: 'widget';
  participantName: string | null;
  phone_number: string | null;
  customVariables: Record<string, unknown>;
  functionTools: PublicTool[];
  roomName: string | null;
  agentToken: string | null;
  webCallEnabled: boolean;
}

export interface WidgetBootstrapDeps {
  sql: Sql;
  keyRing: KeyRing | undefined;
}

export async function bootstrapWidget(
  deps: WidgetBootstrapDeps,
  principal: Principal,
  body: BootstrapRequest,
  now = new Date(),
): Promise<BootstrapMetadata> {
  const agent = await widgetAgent(deps.sql, principal, body.agentId);
  if (body.roomName !== undefined) {
    if (!body.participantName) throw badField('participantName', 'is required when roomName is sent');
    if (!body.phoneNumber) throw badField('phoneNumber', 'is required when roomName is sent');
  }
  const customVariables: Record<string, unknown> = {
    ...agent.customVariables,
    ...body.customVariables,
    ...(body.participantName !== undefined && { participantName: body.participantName }),
    ...(body.phoneNumber !== undefined && { phoneNumber: body.phoneNumber }),
  };
  let agentToken: string | null = null;
  if (body.roomName !== undefined) {
    if (!deps.keyRing)
      throw new ApiError(
        'unavailable',
        'Chat sessions need PARLEY_SECRET_KEYS to sign their tokens: none is configured',
      );
    if (!agent.isActive) throw new ApiError('invalid_state', 'The agent is not active: it cannot open a conversation');
    const callId = await openConversation(deps.sql, principal, agent, body as Required<BootstrapRequest>);
    agentToken = signChatSession(deps.keyRing, {
      callId,
      roomName: body.roomName,
      agentId: agent.id,
      organisationId: agent.organisationId,
      expiresAt: now.getTime() + CHAT_SESSION_TOKEN_TTL_MS,
    });
  }
  return {
    orgId: agent.organisationId,
    agentId: agent.id,
    agentName: agent.name,
    agentIdentity: agent.agentIdentity,
    agentTask: agent.agentTask,
    agentPersonality: agent.agentPersonality,
    pronunciation: agent.pronunciation,
    escalationMessage: agent.escalationMessage,
    greetingMessage: agent.greetingMessage ? fillTemplate(agent.greetingMessage, customVariables) : null,
    closingMessage: agent.closingMessage,
    voicemailMessage: agent.voicemailMessage,
    agentLanguage: agent.language,
    callType: 'chat',
    callDirection: 'INBOUND',
    channel: 'widget',
    participantName: body.participantName ?? null,
    phone_number: body.phoneNumber ?? null,
    customVariables,
    functionTools: Object.entries(agent.functionTools).map(([key, tool]) => ({
      name: tool.name ?? key,
      description: tool.description,
    })),
    roomName: body.roomName ?? null,
    agentToken,
    webCallEnabled: agent.webCallEnabled,
  };
}

/**
 * The conversation named `roomName`: resumed when it is this agent's chat, opened when no call has that name. A
 * roomName taken by anything else (a call, another agent's or organisation's chat) is a 409.
 */
async function openConversation(
  sql: Sql,
  principal: Principal,
  agent: AgentRecord,
  body: Required<BootstrapRequest>,
): Promise<string> {
  const existing = await findCallByRoomName(sql, body.roomName);
  if (existing) return resumable(existing, agent);
  const id = newId();
  try {
    await sql.begin(async (tx) => {
      await createCall(tx, {
        id,
        organisationId: agent.organisationId,
        agent,
        roomName: body.roomName,
        participantName: body.participantName,
        // Stored without spaces, brackets or dashes: a number written "+44 113 496 0000" is +441134960000, which
        // a callback can dial.
        phoneNumber: body.phoneNumber.replace(/[\s()-]/g, ''),
        createdById: principal.userId,
        callType: 'chat',
        callDirection: 'INBOUND',
        customVariables: {
          ...body.customVariables,
          participantName: body.participantName,
          phoneNumber: body.phoneNumber,
        },
        metaData: { channel: 'widget', widgetKeyId: principal.keyId },
        source: 'widget',
        status: null,
      });
      const greeting = agent.greetingMessage
        ? fillTemplate(agent.greetingMessage, { ...agent.customVariables, ...body.customVariables, ...body })
        : '';
      if (greeting.trim()) {
        await insertLine(tx, {
          organisationId: agent.organisationId,
          callId: id,
          speaker: 'assistant',
          text: greeting,
          startMs: 0,
          endMs: 0,
        });
      }
    });
  } catch (error) {
    // Two tabs of one visitor opened the same new conversation at once: the other one's record is theirs too.
    const raced =
      error instanceof ApiError && error.code === 'conflict' && (await findCallByRoomName(sql, body.roomName));
    if (raced) return resumable(raced, agent);
    throw error;
  }
  return id;
}

function resumable(
  call: { id: string; call_type: string; agent_id: string; organisation_id: string },
  agent: AgentRecord,
): string {
  if (call.call_type !== 'chat' || call.agent_id !== agent.id || call.organisation_id !== agent.organisationId)
    throw new ApiError('conflict', 'roomName belongs to another conversation: choose a new one');
  return call.id;
}
