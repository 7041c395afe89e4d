/**
 * POST /widget/voice-session (spec document 2, Widget): a visitor asks for an in-browser voice call with a chat
 * agent. Every check of the spec runs, in the spec's order of concern — the token's agent (403/404), a CHAT agent
 * that is active and has web calling enabled (400), the organisation may spend (402), the same request again within
 * seconds (409), the caps (429: 3 per phone number per organisation per 24 hours; 10 per IP address when no number
 * is given) — and a request that passes them is counted against the caps.
 *
 * What does not exist yet: the browser's media path. Parley has no WebRTC transport (docs/architecture.md §9), so no
 * engine can carry a `web` call and no participant token can be issued; a request that passes every check is then
 * refused 400 "not supported yet", as POST /voice/session refuses callType web. The 503 of "no realtime voice server"
 * belongs to that missing dispatch and cannot arise before it exists.
 */
import type { Principal } from '../auth/principal.ts';
import { callPermission } from '../billing/call-permission.ts';
import type { Sql } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { countCallRequests, hasRecentCallRequest, insertCallRequest, lockCallRequests } from './chat-repository.ts';
import { widgetAgent } from './widget-agent.ts';

/** Spec document 3: browser voice calls per phone number per organisation per 24 hours. */
export const CALLS_PER_NUMBER = 3;
/** Spec document 3: browser voice calls per IP address per 24 hours when no number is given. */
export const CALLS_PER_IP = 10;
export const CAP_WINDOW_MS = 24 * 3_600_000;
/** Spec document 3: a number counts for the per-number cap when it has 8 or more characters (digits here). */
export const MIN_CAPPED_NUMBER_DIGITS = 8;
/** The same visitor's call asked for again within this window is a double click, not a second call (409). */
export const DUPLICATE_WINDOW_MS = 5_000;

export interface VoiceSessionRequest {
  agentId: string;
  participantName?: string;
  participantNumber?: string;
  roomName?: string;
  customVariables?: Record<string, unknown>;
}

export async function requestWidgetVoiceSession(
  sql: Sql,
  principal: Principal,
  body: VoiceSessionRequest,
  clientIp: string,
): Promise<never> {
  const agent = await widgetAgent(sql, principal, body.agentId);
  if (!agent.isActive) throw new ApiError('invalid_state', 'The agent is not active');
  if (!agent.webCallEnabled) throw new ApiError('invalid_state', 'Web calling is not enabled for this agent');
  const permission = await callPermission(sql, agent.organisationId);
  if (!permission.allowed)
    throw new ApiError('payment_required', 'Calls with this agent are not available right now: please try again later');
  const digits = body.participantNumber?.replace(/\D/g, '') ?? '';
  const phoneNumber = digits.length >= MIN_CAPPED_NUMBER_DIGITS ? digits : null;
  await sql.begin(async (tx) => {
    // One organisation's requests are counted one after another, so two at once cannot both slip under a cap.
    await lockCallRequests(tx, agent.organisationId);
    if (
      await hasRecentCallRequest(tx, {
        agentId: agent.id,
        phoneNumber,
        requestedById: principal.userId,
        withinMs: DUPLICATE_WINDOW_MS,
      })
    )
      throw new ApiError('conflict', 'The same call was requested a moment ago');
    if (phoneNumber) {
      const made = await countCallRequests(tx, {
        organisationId: agent.organisationId,
        phoneNumber,
        sinceMs: CAP_WINDOW_MS,
      });
      if (made >= CALLS_PER_NUMBER)
        throw new ApiError(
          'rate_limited',
          `At most ${CALLS_PER_NUMBER} calls per phone number per day: try again tomorrow`,
        );
    } else {
      const made = await countCallRequests(tx, { clientIp, sinceMs: CAP_WINDOW_MS });
      if (made >= CALLS_PER_IP)
        throw new ApiError(
          'rate_limited',
          `At most ${CALLS_PER_IP} calls per day from one address: try again tomorrow`,
        );
    }
    await insertCallRequest(tx, {
      organisationId: agent.organisationId,
      agentId: agent.id,
      requestedById: principal.userId,
      keyId: principal.keyId,
      phoneNumber,
      clientIp,
    });
  });
  throw new ApiError(
    'invalid_state',
    'Browser voice calls are not supported yet: Parley has no WebRTC media path, so no call can be placed. ' +
      'Chat with the agent instead',
  );
}
