/**
 * The calls tools (spec document 2): the call history, one call, its transcript, a search through what was said,
 * and placing a phone call — always through the agent's carrier websocket bridge (MCP rule 6; SIP is not exposed).
 */
import { z } from 'zod';
import { previewResult } from './confirm.ts';
import { DEFAULT_LIST_LIMIT, listResult, valueResult } from './results.ts';
import { confirmArgument, defineTool, listArguments, orgArgument, pageArgument, type Tool } from './tool.ts';
import type { ToolContext } from './tool-context.ts';
import { getAgent, getCall } from './reads.ts';

const SERVICE = 'Calls';

const historyFilters = {
  ...orgArgument,
  agent_id: z.string().min(1).max(64).optional().describe('Only calls of this agent'),
  direction: z.enum(['inbound', 'outbound']).optional(),
  outcome: z.enum(['answered', 'no_answer', 'busy', 'rejected', 'voicemail', 'failed']).optional(),
  start_date: z.string().max(40).optional().describe('From this time (ISO 8601) or date (YYYY-MM-DD, UTC)'),
  end_date: z.string().max(40).optional().describe('Up to this time or the end of this date'),
  ...pageArgument,
  ...listArguments,
};

interface HistoryPage {
  sessions: unknown[];
  pagination: { page: number; limit: number; total: number };
}

async function history(
  context: ToolContext,
  args: z.infer<z.ZodObject<typeof historyFilters>>,
  extra: Record<string, string | undefined>,
) {
  const limit = args.limit ?? DEFAULT_LIST_LIMIT;
  const orgId = context.organisation(args.org_id);
  const data = await context.call<HistoryPage>(SERVICE, {
    method: 'GET',
    path: `/call-history/sessions/organization/${encodeURIComponent(orgId)}`,
    query: {
      agentId: args.agent_id,
      callDirection: args.direction,
      outcome: args.outcome,
      startDate: args.start_date,
      endDate: args.end_date,
      page: args.page,
      limit,
      ...extra,
    },
  });
  return listResult(
    { items: data.sessions, total: data.pagination.total, page: data.pagination.page, limit },
    args.fields,
  );
}

const callsList = defineTool({
  name: 'calls_list',
  title: 'Recent calls',
  description:
    'Call sessions of the organisation, newest first: who, which agent, direction, status, duration, outcome and summary.',
  toolClass: 'read',
  scopes: ['calls:read'],
  input: { ...historyFilters, search: z.string().min(1).max(100).optional().describe('A name, a number or a Call ID') },
  async run(args, context) {
    return history(context, args, { search: args.search });
  },
});

const callsSearch = defineTool({
  name: 'calls_search',
  title: 'Search transcripts',
  description:
    'Calls in which either side said the given words (case-insensitive), newest first. calls_get_transcript reads one.',
  toolClass: 'read',
  scopes: ['calls:read'],
  input: { query: z.string().min(2).max(200).describe('Words said in the call'), ...historyFilters },
  async run(args, context) {
    return history(context, args, { transcript: args.query });
  },
});

const callsGet = defineTool({
  name: 'calls_get',
  title: 'Get a call',
  description:
    'One call session in full, by its session id or its Call ID (room name): status, times, numbers, agent, outcome, analysis.',
  toolClass: 'read',
  scopes: ['calls:read'],
  input: { call_id: z.string().min(1).max(200).describe('The session id or the Call ID (room name)') },
  async run(args, context) {
    return valueResult(await getCall(context, args.call_id));
  },
});

const callsGetTranscript = defineTool({
  name: 'calls_get_transcript',
  title: 'Read a transcript',
  description:
    'Every line of a call in spoken order, by Call ID (room name): speaker (assistant is the agent, user the other person), text, ' +
    'offsets from the start, and whether an agent line was cut short (its text is what was heard).',
  toolClass: 'read',
  scopes: ['calls:read'],
  input: { room_name: z.string().min(1).max(128).describe('The Call ID') },
  async run(args, context) {
    return valueResult(
      await context.call(SERVICE, {
        method: 'GET',
        path: `/call-history/sessions/room/${encodeURIComponent(args.room_name)}/transcripts`,
      }),
    );
  },
});

const callsPlace = defineTool({
  name: 'calls_place',
  title: 'Place a phone call',
  description:
    "An agent calls a phone number now, over the calling number's carrier (the carrier websocket bridge). The call is " +
    "billed and the person is really called: preview first and get your user's approval.",
  toolClass: 'destructive',
  confirm: true,
  scopes: ['calls:create'],
  input: {
    agent_id: z.string().min(1).max(64).describe('A VOICE agent'),
    phone_number: z.string().min(8).max(16).describe('The number to call, E.164 (e.g. +14155550123)'),
    participant_name: z.string().min(1).max(255).optional().describe('Who is called; default "Customer"'),
    calling_number: z
      .string()
      .max(16)
      .optional()
      .describe("The organisation's number to call from; default the agent's"),
    custom_variables: z.record(z.string(), z.unknown()).optional().describe("Values for the agent's {{placeholders}}"),
    ...confirmArgument,
  },
  async run(args, context) {
    const agent = await getAgent(context, args.agent_id);
    const participantName = args.participant_name ?? 'Customer';
    if (!args.confirm) {
      const from = args.calling_number ?? agent.callingNumber ?? null;
      return previewResult('calls_place', {
        action: `Call ${args.phone_number} now with the agent "${agent.name}"`,
        target: {
          agent: { id: agent.id, name: agent.name, agentType: agent.agentType, isActive: agent.isActive },
          to: args.phone_number,
          from,
          carrier: args.calling_number ? 'the carrier of that number' : (agent.telephonyProvider ?? null),
          participantName,
        },
        effects: from
          ? [
              'The phone rings at once; the agent greets whoever answers and follows its task.',
              'The call is charged to the organisation like any other call.',
            ]
          : [
              'The agent has no calling number, so the call would be refused: pass calling_number, or set one with agents_update.',
            ],
      });
    }
    return valueResult(
      await context.call(SERVICE, {
        method: 'POST',
        path: '/voice/session',
        body: {
          agentId: agent.id,
          participantName,
          callType: 'sip',
          participantNumber: args.phone_number,
          callingNumber: args.calling_number,
          customVariables: args.custom_variables,
        },
      }),
    );
  },
});

export const callTools: readonly Tool[] = [callsList, callsGet, callsGetTranscript, callsSearch, callsPlace];
