/**
 * POST /widget/voice-session (spec document 2, Widget): a visitor asks for an in-browser voice call with a chat
 * agent. Every check of the spec runs, in the spec's order of concern — the token's agent (403/404), a CHAT agent
 * that is active and has web calling enabled (400), the organisation may spend (402), the same request again within
 * seconds (409), the caps (429: 3 per phone number per organisation per 24 hours; 10 per IP address when no number
 * is given) — and a request that passes them is counted against the caps and placed as a browser call by the same
 * function POST /voice/session's callType web uses (calls/launch/web-placement.ts, docs/architecture.md §16): it
 * answers the participant token and the signalling URL, or 503 when no engine takes the call.
 */
import type { Principal } from '../auth/principal.ts';
import { callPermission } from '../billing/call-permission.ts';
import type { Sql } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { isE164 } from '../http/e164.ts';
import { placeWebCall, type WebPlacementDeps } from '../calls/launch/web-placement.ts';
import type { PlacedWebCall } from '../calls/launch/types.ts';
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

/** The visitor shown on the call record when the widget names nobody. */
const ANONYMOUS_VISITOR = 'Website visitor';

export async function requestWidgetVoiceSession(
  sql: Sql,
  web: WebPlacementDeps,
  principal: Principal,
  body: VoiceSessionRequest,
  clientIp: string,
): Promise<PlacedWebCall> {
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
  // The number counts for the caps however it was written; the call record keeps it only when it is E.164.
  const number = body.participantNumber?.replace(/[\s().-]/g, '');
  return placeWebCall(web, {
    organisationId: agent.organisationId,
    agent,
    participantName: body.participantName?.trim() || ANONYMOUS_VISITOR,
    participantNumber: number && isE164(number) ? number : undefined,
    customVariables: body.customVariables,
    createdById: principal.userId,
    source: 'widget',
    meta: { channel: 'widget', clientIp },
  });
}
