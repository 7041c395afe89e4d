/**
 * The numbers tools (spec document 2) over the organisation's connected numbers: list them, and route a number's
 * inbound calls to an agent or take it away — both confirm-gated, since a live number's callers are affected at once.
 * Searching and buying numbers are in number-purchases.ts; the list here is in the spec table's order.
 */
import { z } from 'zod';
import { previewResult } from './confirm.ts';
import { DEFAULT_LIST_LIMIT, listResult, valueResult } from './results.ts';
import { confirmArgument, defineTool, listArguments, orgArgument, pageArgument, type Tool } from './tool.ts';
import { getAgent } from './reads.ts';
import { numberPurchaseTools } from './number-purchases.ts';
import { RestFailure, type ToolContext } from './tool-context.ts';

const SERVICE = 'Telephony';

interface PhoneNumber {
  id: string;
  phoneNumber: string;
  provider: string;
  routingStatus: string | null;
  agent: { id: string; name: string } | null;
  [field: string]: unknown;
}

const numberArgument = {
  number: z.string().min(1).max(64).describe("The number's id, or the number itself in E.164 (e.g. +14155550123)"),
};

function listNumbers(context: ToolContext, orgId: string): Promise<PhoneNumber[]> {
  return context.call<PhoneNumber[]>(SERVICE, {
    method: 'GET',
    path: `/telephony/numbers/${encodeURIComponent(orgId)}`,
  });
}

/** The active number named by id or by E.164, or the REST API's own kind of 404. */
async function findNumber(context: ToolContext, orgId: string, wanted: string): Promise<PhoneNumber> {
  const compact = wanted.replace(/[\s()-]/g, '');
  const found = (await listNumbers(context, orgId)).find(
    (number) => number.id === wanted || number.phoneNumber === compact,
  );
  if (!found)
    throw new RestFailure(SERVICE, 404, `No active number ${wanted} in the organisation (numbers_list shows them)`);
  return found;
}

function summary(number: PhoneNumber) {
  return {
    id: number.id,
    phoneNumber: number.phoneNumber,
    provider: number.provider,
    routingStatus: number.routingStatus,
    agent: number.agent,
  };
}

const numbersList = defineTool({
  name: 'numbers_list',
  title: 'List phone numbers',
  description:
    'Active numbers connected to the organisation, newest first: carrier, routing status, the agent answering, calling scope.',
  toolClass: 'read',
  scopes: ['numbers:read'],
  input: { ...orgArgument, ...pageArgument, ...listArguments },
  async run(args, context) {
    const numbers = await listNumbers(context, context.organisation(args.org_id));
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const page = args.page ?? 1;
    return listResult(
      { items: numbers.slice((page - 1) * limit, page * limit), total: numbers.length, page, limit },
      args.fields,
    );
  },
});

const numbersAssign = defineTool({
  name: 'numbers_assign',
  title: 'Route a number to an agent',
  description:
    "From now on the number's inbound calls are answered by the agent (an active VOICE agent). The carrier is told to send " +
    "the number's calls to Parley; a number answered by another agent switches over.",
  toolClass: 'destructive',
  confirm: true,
  scopes: ['numbers:write'],
  input: {
    ...numberArgument,
    agent_id: z.string().min(1).max(64).describe('The agent to answer'),
    ...orgArgument,
    ...confirmArgument,
  },
  async run(args, context) {
    const orgId = context.organisation(args.org_id);
    const number = await findNumber(context, orgId, args.number);
    if (!args.confirm) {
      const agent = await getAgent(context, args.agent_id);
      return previewResult('numbers_assign', {
        action: `Route ${number.phoneNumber} to the agent "${agent.name}"`,
        target: {
          number: summary(number),
          agent: { id: agent.id, name: agent.name, agentType: agent.agentType, isActive: agent.isActive },
        },
        effects: [
          number.agent
            ? `Calls now answered by "${number.agent.name}" go to "${agent.name}" instead.`
            : `Inbound calls to ${number.phoneNumber} are answered by "${agent.name}".`,
          `The ${number.provider} number's voice webhook is pointed at Parley (an application or SIP trunk on it is cleared).`,
        ],
      });
    }
    return valueResult(
      await context.call(SERVICE, {
        method: 'PUT',
        path: `/telephony/numbers/${encodeURIComponent(number.id)}/agent`,
        body: { organisationId: orgId, agentId: args.agent_id },
      }),
    );
  },
});

const numbersUnassign = defineTool({
  name: 'numbers_unassign',
  title: 'Detach a number from its agent',
  description:
    "The number's inbound calls stop reaching its agent; callers hear that nobody takes the call until it is assigned again.",
  toolClass: 'destructive',
  confirm: true,
  scopes: ['numbers:write'],
  input: { ...numberArgument, ...orgArgument, ...confirmArgument },
  async run(args, context) {
    const orgId = context.organisation(args.org_id);
    const number = await findNumber(context, orgId, args.number);
    if (!args.confirm) {
      return previewResult('numbers_unassign', {
        action: `Detach ${number.phoneNumber} from ${number.agent ? `the agent "${number.agent.name}"` : 'its agent (it has none now)'}`,
        target: summary(number),
        effects: number.agent
          ? [
              'Inbound calls to the number are no longer answered by an agent.',
              'Agents calling out from it keep doing so.',
            ]
          : ['Nothing: no agent answers this number now.'],
      });
    }
    return valueResult(
      await context.call(SERVICE, {
        method: 'DELETE',
        path: `/telephony/numbers/${encodeURIComponent(number.id)}/agent`,
        query: { organisationId: orgId },
      }),
    );
  },
});

export const numberTools: readonly Tool[] = [numbersList, ...numberPurchaseTools, numbersAssign, numbersUnassign];
