/**
 * Browser calls, callType `web` (docs/architecture.md §16): no carrier and no phone — the visitor's browser carries
 * the call over WebRTC to the engine. One domain function for every way in: POST /voice/session with callType web
 * (an API key) and POST /widget/voice-session (a widget token) both call `placeWebCall`, so both admit, record and
 * dispatch a browser call the same way.
 *
 * The steps, in order: may the organisation call at all (402 saying why), the same call again within the duplicate
 * window (409, only when a visitor number identifies the caller), then in one transaction the admission (plan
 * limits, concurrent lines) and the record (QUEUED, callType web), then the dispatch to an engine (503 when none
 * takes it; the record is then FAILED). The answer carries the participant token — the engine's one-use stream
 * token, bound to this call and valid for the engine's media timeout (60 s) — and `wsUrl`, the engine's signalling
 * websocket the browser opens with it (`<PARLEY_MEDIA_URL>/webrtc/<token>`). In LiveKit mode the token is the
 * visitor's LiveKit access token for the room `roomName` and `wsUrl` is LIVEKIT_URL; the engine is handed the
 * agent's token in the call's spec and joins that room itself (livekit-tokens.ts).
 */
import type { AgentRecord, StoredTools } from '../../agents/records.ts';
import type { Sql } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import { ApiError, badField } from '../../errors.ts';
import { E164_EXAMPLE, isE164 } from '../../http/e164.ts';
import type { KeyRing } from '../../secrets/key-ring.ts';
import { roomNameFor, type CallSource } from '../repository/call-records.ts';
import { createCall } from '../repository/call-repository.ts';
import { hasRecentDuplicate } from '../repository/launch-repository.ts';
import { admitCall, assertMayCall, type AdmissionLimits } from '../../billing/call-admission.ts';
import { buildCallSpec } from './call-spec.ts';
import type { EngineDispatcher } from './engine-dispatch.ts';
import { liveKitCallTokens, type LiveKitConfig } from './livekit-tokens.ts';
import type { PlacedWebCall } from './types.ts';

/** Same agent, visitor number and key owner within this window is the same call asked for twice (spec: 409). */
export const WEB_DUPLICATE_WINDOW_MS = 5_000;

export interface WebPlacementDeps {
  sql: Sql;
  dispatcher: EngineDispatcher;
  keyRing: KeyRing | undefined;
  admission: AdmissionLimits;
  /** LiveKit mode (LIVEKIT_URL and keys): the call happens in a LiveKit room; undefined: on the engine's endpoint. */
  livekit?: LiveKitConfig;
}

/** A browser call to place: checked by the caller for what its route owns (the agent's kind, the token's rights). */
export interface WebCallRequest {
  organisationId: string;
  /** The agent that talks: a VOICE agent (POST /voice/session) or a CHAT agent with web calling (the widget). */
  agent: AgentRecord;
  participantName: string;
  /** The visitor's number, E.164, when they gave one: the duplicate check and the returning-caller memory use it. */
  participantNumber?: string;
  /** The body field `participantNumber` came from, named in its 400. */
  participantNumberField?: string;
  customVariables?: Record<string, unknown>;
  useCase?: string | null;
  masterSettings?: Record<string, unknown>;
  /** The call's own webhook tools (sealed), replacing the agent's. */
  tools?: StoredTools;
  /** The key owner (the API key's, or the widget token's): the record's creator and part of the duplicate key. */
  createdById: string;
  source: Extract<CallSource, 'api' | 'widget'>;
  /** More metaData for the record (the widget's channel, the visitor's address). */
  meta?: Record<string, unknown>;
}

export async function placeWebCall(deps: WebPlacementDeps, request: WebCallRequest): Promise<PlacedWebCall> {
  const { organisationId, agent, participantNumber } = request;
  if (participantNumber !== undefined && !isE164(participantNumber))
    throw badField(request.participantNumberField ?? 'body.participantNumber', `must be ${E164_EXAMPLE} when given`);
  await assertMayCall(deps.sql, organisationId);
  const id = newId();
  const customVariables = request.customVariables ?? {};
  const roomName = roomNameFor(id);
  const livekit = deps.livekit
    ? {
        config: deps.livekit,
        tokens: await liveKitCallTokens(deps.livekit, {
          callId: id,
          roomName,
          participantName: request.participantName,
        }),
      }
    : undefined;
  const built = buildCallSpec({
    callId: id,
    organisationId,
    agent,
    keyRing: deps.keyRing,
    direction: 'OUTBOUND',
    participant: { name: request.participantName, phoneNumber: participantNumber },
    callVariables: customVariables,
    tools: request.tools,
    masterSettings: request.masterSettings,
  });
  const spec = livekit
    ? { ...built, livekit: { url: livekit.config.url, room: roomName, token: livekit.tokens.agent } }
    : built;
  await deps.sql.begin(async (tx) => {
    if (
      participantNumber !== undefined &&
      (await hasRecentDuplicate(tx, {
        agentId: agent.id,
        participantNumber,
        userId: request.createdById,
        windowMs: WEB_DUPLICATE_WINDOW_MS,
      }))
    )
      throw new ApiError(
        'conflict',
        'The same call (agent, participantNumber and key owner) was requested within the last 5 seconds',
      );
    await admitCall(tx, organisationId, deps.admission);
    await createCall(tx, {
      id,
      organisationId,
      agent,
      roomName,
      participantName: request.participantName,
      phoneNumber: participantNumber ?? null,
      createdById: request.createdById,
      callType: 'web',
      callDirection: 'OUTBOUND',
      customVariables,
      metaData: {
        transport: livekit ? 'livekit' : 'webrtc',
        ...request.meta,
        ...(request.masterSettings && { masterSettings: request.masterSettings }),
        ...(request.tools && { functionToolsOverridden: true }),
      },
      source: request.source,
      useCase: request.useCase ?? null,
      maxDurationMs: spec.limits.maxDurationMs,
      status: 'QUEUED',
    });
  });
  const engine = await deps.dispatcher.dispatchWeb(spec);
  const { token, wsUrl } = livekit ? { token: livekit.tokens.visitor, wsUrl: livekit.config.url } : engine;
  return {
    success: true,
    roomName,
    sessionId: id,
    callType: 'web',
    status: 'initiated',
    token,
    wsUrl,
  };
}
