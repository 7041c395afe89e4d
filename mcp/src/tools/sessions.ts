/** The sessions tools (spec document 2): a voice session by id, an agent's sessions a slice at a time, a session's conversation. */
import { z } from 'zod';
import { getCall } from './reads.ts';
import { DEFAULT_LIST_LIMIT, listResult, valueResult } from './results.ts';
import { defineTool, listArguments, orgArgument, type Tool } from './tool.ts';

const SERVICE = 'Calls';
const sessionId = z
  .string()
  .regex(/^[0-9a-fA-F]{24}$/, 'a session id is 24 hexadecimal characters')
  .describe('The session (call record) id');

const sessionsGet = defineTool({
  name: 'sessions_get',
  title: 'Get a voice session',
  description: 'One voice session (call record) by id, with its organisation, agent and creator.',
  toolClass: 'read',
  scopes: ['calls:read'],
  input: { session_id: sessionId },
  async run(args, context) {
    return valueResult(await getCall(context, args.session_id));
  },
});

const sessionsByAgent = defineTool({
  name: 'sessions_by_agent',
  title: "An agent's sessions",
  description:
    'Voice sessions of one agent, newest first, by offset: pass offset = the previous offset + count for the next slice.',
  toolClass: 'read',
  scopes: ['calls:read'],
  input: {
    agent_id: z.string().min(1).max(64).describe('The agent'),
    ...orgArgument,
    offset: z.number().int().min(0).optional().describe('Sessions to skip, default 0'),
    ...listArguments,
  },
  async run(args, context) {
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const offset = args.offset ?? 0;
    const orgId = context.organisation(args.org_id);
    const sessions = await context.call<unknown[]>(SERVICE, {
      method: 'GET',
      path: `/voice-sessions/organization/${encodeURIComponent(orgId)}`,
      query: { agentId: args.agent_id, offset, limit },
    });
    return listResult({ items: sessions, offset, limit }, args.fields);
  },
});

const sessionsConversation = defineTool({
  name: 'sessions_conversation',
  title: "A session's conversation",
  description:
    'The conversation of a voice session by session id: who said what, in order (agent lines cut short hold what was heard).',
  toolClass: 'read',
  scopes: ['calls:read'],
  input: { session_id: sessionId },
  async run(args, context) {
    const session = await getCall(context, args.session_id);
    const transcript = await context.call<{
      transcripts: Array<{ speaker: string; text: string; startMs: number; interrupted: boolean }>;
    }>(SERVICE, {
      method: 'GET',
      path: `/call-history/sessions/room/${encodeURIComponent(session.roomName)}/transcripts`,
    });
    return valueResult({
      sessionId: session.id,
      roomName: session.roomName,
      conversation: transcript.transcripts.map((line) => ({
        speaker: line.speaker === 'assistant' ? 'agent' : 'caller',
        text: line.text,
        atMs: line.startMs,
        ...(line.interrupted ? { interrupted: true } : {}),
      })),
    });
  },
});

export const sessionTools: readonly Tool[] = [sessionsGet, sessionsByAgent, sessionsConversation];
