/**
 * Calls with callType `websocket`: no carrier and no phone — the client itself streams the call's audio over a
 * websocket to the engine. POST /voice/session records the call, dispatches it, and answers the one-use stream URL
 * (`websocketUrl`), which the client opens within the engine's media timeout (60 s).
 *
 * The stream speaks the Media Streams dialect of carrier-b (docs/architecture.md §5; Twilio's documented format, which many
 * clients already speak): `connected`/`start`/`media` (base64 μ-law 8 kHz)/`mark`/`dtmf`/`stop` in, `media`/`mark`/
 * `clear` out. It is the same engine transport as a carrier stream, so barge-in, marks and faults behave the same.
 */
import type { AgentRecord } from '../../agents/records.ts';
import { prepareTools } from '../../agents/function-tools.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Sql } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import { badField } from '../../errors.ts';
import { E164_EXAMPLE, isE164 } from '../../http/e164.ts';
import type { KeyRing } from '../../secrets/key-ring.ts';
import { roomNameFor } from '../repository/call-records.ts';
import { createCall } from '../repository/call-repository.ts';
import { admitCall, assertMayCall, type AdmissionLimits } from '../../billing/call-admission.ts';
import { buildCallSpec } from './call-spec.ts';
import type { EngineDispatcher } from './engine-dispatch.ts';
import type { PlaceCallRequest, PlacedWebsocketCall } from './types.ts';

/** The media protocol websocket calls speak. */
export const WEBSOCKET_CALL_DIALECT = 'carrier-b';

export interface WebsocketPlacementDeps {
  sql: Sql;
  dispatcher: EngineDispatcher;
  keyRing: KeyRing | undefined;
  admission: AdmissionLimits;
}

export async function placeWebsocketCall(
  deps: WebsocketPlacementDeps,
  principal: Principal,
  agent: AgentRecord,
  body: PlaceCallRequest,
): Promise<PlacedWebsocketCall> {
  if (body.callTime !== undefined)
    throw badField('body.callTime', 'cannot schedule a websocket call: its client connects when it is placed');
  if (body.participantNumber !== undefined && !isE164(body.participantNumber)) {
    throw badField('body.participantNumber', `must be ${E164_EXAMPLE} when given`);
  }
  await assertMayCall(deps.sql, principal.organisationId);
  const organisationId = principal.organisationId;
  const id = newId();
  const tools =
    body.functionTools === undefined ? undefined : prepareTools(body.functionTools, deps.keyRing, organisationId);
  const customVariables = body.customVariables ?? {};
  const spec = buildCallSpec({
    callId: id,
    organisationId,
    agent,
    keyRing: deps.keyRing,
    direction: 'OUTBOUND',
    participant: { name: body.participantName, phoneNumber: body.participantNumber },
    callVariables: customVariables,
    tools,
    masterSettings: body.master_settings,
  });
  await deps.sql.begin(async (tx) => {
    await admitCall(tx, organisationId, deps.admission);
    await createCall(tx, {
      id,
      organisationId,
      agent,
      roomName: roomNameFor(id),
      participantName: body.participantName,
      phoneNumber: body.participantNumber ?? null,
      createdById: principal.userId,
      callType: 'websocket',
      callDirection: 'OUTBOUND',
      customVariables,
      metaData: {
        transport: 'websocket',
        ...(body.master_settings && { masterSettings: body.master_settings }),
        ...(tools && { functionToolsOverridden: true }),
      },
      source: 'api',
      useCase: body.useCase ?? null,
      maxDurationMs: spec.limits.maxDurationMs,
      status: 'QUEUED',
    });
  });
  const websocketUrl = await deps.dispatcher.dispatch(spec, WEBSOCKET_CALL_DIALECT);
  return {
    success: true,
    roomName: roomNameFor(id),
    sessionId: id,
    callType: 'websocket',
    status: 'initiated',
    websocketUrl,
  };
}
