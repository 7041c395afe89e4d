/**
 * A chat visitor asking to be called back (spec document 1: a CHAT agent's callbackAgentId is "a VOICE agent of
 * the same organisation that places callbacks for a chat agent"): a tool the chat agent is given when it has a
 * callback agent and the visitor gave a phone number. It places the call exactly as POST /voice/callback does for a
 * chat conversation — same checks (402, 409, the calling number and its scope), now or at the time the visitor
 * named — recorded as made by the widget token's owner.
 */
import type { HostTool } from '@parley/engine/agent';
import type { CallbackRequest, PlacedCallback } from '../calls/launch/types.ts';
import type { CallRequester } from '../calls/launch/placement.ts';
import { ApiError } from '../errors.ts';
import type { AgentRecord } from '../agents/records.ts';
import type { CallRow } from '../calls/repository/call-records.ts';

export const CALLBACK_TOOL_NAME = 'request_callback';

/** What places callbacks: the control plane's call placement (calls/launch/placement.ts). */
export interface CallbackPlacer {
  placeCallback(requester: CallRequester, body: CallbackRequest): Promise<PlacedCallback>;
}

/** The callback tool of this conversation, or undefined when it cannot have one. */
export function callbackTool(
  conversation: { call: CallRow; agent: AgentRecord },
  placer: CallbackPlacer | undefined,
): HostTool | undefined {
  const { call, agent } = conversation;
  if (!placer || !agent.callbackAgentId || !call.phone_number || !call.created_by_id) return undefined;
  const requester = { organisationId: call.organisation_id, userId: call.created_by_id };
  return {
    definition: {
      name: CALLBACK_TOOL_NAME,
      description:
        'Arrange a phone call back to the visitor, on the number they gave, by a colleague. Use it only when the ' +
        'visitor asks to be called or agrees to it. Give `when` (ISO 8601 UTC, in the future) if they named a ' +
        'time; leave it out to call now. Tell the visitor what was arranged.',
      parameters: {
        type: 'object',
        properties: {
          when: { type: 'string', description: 'When to call, ISO 8601 in UTC; omit to call now' },
          note: { type: 'string', description: 'What the visitor wants to talk about' },
        },
      },
    },
    async run(argumentsJson) {
      let args: { when?: unknown; note?: unknown };
      try {
        args = argumentsJson.trim() ? (JSON.parse(argumentsJson) as typeof args) : {};
      } catch {
        return { ok: false, content: 'The arguments were not valid JSON; no call was arranged.' };
      }
      try {
        const placed = await placer.placeCallback(requester, {
          roomName: call.room_name,
          ...(typeof args.when === 'string' && args.when && { dateTime: args.when }),
          ...(typeof args.note === 'string' && args.note && { metaData: { note: args.note } }),
        });
        return { ok: true, content: placed.message };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return { ok: false, content: `No call could be arranged: ${error.message}` };
      }
    },
  };
}
