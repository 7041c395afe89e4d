/**
 * Route schema of POST /voice/session (spec document 2, "Calls: placing and call records"). Fields the spec lists as
 * ignored (orgId, roomName) are accepted and ignored; rules a schema cannot state (participantNumber required for
 * sip, callTime in the future) are checked by the placement (calls/placement.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, Id, StringEnum, authErrors, errors } from '../../../http/schemas.ts';
import { FunctionToolsInput } from '../../../agents/field-schemas.ts';

const JsonObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

export const PlaceCallBody = Type.Object({
  agentId: Id('A VOICE agent of the organisation'),
  participantName: Type.String({ minLength: 1, maxLength: 255 }),
  callType: StringEnum(['sip', 'web', 'websocket'] as const, {
    description:
      "sip places a phone call over the calling number's carrier (carrier-a, carrier-b or carrier-c), or, for a calling number that is no carrier number (or none), over the organisation's active OUTBOUND SIP configuration (GET /sip-config/organisation/{organisationId}) through the SIP gateway; websocket answers a one-use websocketUrl the client streams the call over (Media Streams format: μ-law 8 kHz in base64 JSON, marks, clear); web (WebRTC) is not supported yet (400)",
  }),
  participantNumber: Type.Optional(
    Type.String({ maxLength: 16, description: 'E.164; required when callType is sip, optional for websocket' }),
  ),
  useCase: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "Stored on the call: the results' use case `use:<name>`",
    }),
  ),
  customVariables: Type.Optional(
    JsonObject('Filled into {{placeholders}}; `campaignId` inside links the call to a campaign'),
  ),
  orgId: Type.Optional(Type.String({ description: "Ignored: the organisation is the agent's" })),
  roomName: Type.Optional(Type.String({ description: 'Ignored: the room name is generated' })),
  callingNumber: Type.Optional(
    Type.String({
      maxLength: 16,
      description:
        "One of the organisation's active numbers, or the phoneNumber of an active OUTBOUND SIP configuration; default the agent's callingNumber",
    }),
  ),
  callTime: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Future UTC ISO 8601: the call is recorded SCHEDULED and not placed now',
    }),
  ),
  master_settings: Type.Optional(
    JsonObject('Per-call runtime settings: maxDurationSeconds, inactivitySeconds; stored in metaData.masterSettings'),
  ),
  functionTools: Type.Optional(FunctionToolsInput),
});
export type PlaceCallBody = Static<typeof PlaceCallBody>;

const PlacedCall = Type.Object({
  success: Type.Boolean(),
  roomName: Type.String({ description: 'The Call ID' }),
  sessionId: Type.String({ description: 'The call record id' }),
  callType: Type.String(),
  status: Type.String({
    description:
      'initiated: an engine accepted the call and the carrier is placing it; scheduled: recorded for callTime',
  }),
  websocketUrl: Type.Optional(
    Type.String({
      description:
        'callType websocket only: the one-use URL the client opens within 60 s to stream the call (the Media Streams dialect of carrier-b, docs/architecture.md §5)',
    }),
  ),
});

export const placeCall = {
  tags: ['calls'],
  summary: 'Place a phone call with an agent',
  description:
    "Checks the agent (active, VOICE), the calling number (one of the organisation's active carrier-a, carrier-b or carrier-c " +
    "numbers), the destination against that number's calling scope (403: SAME_COUNTRY unless widened with PUT " +
    '/telephony/numbers/{id}/calling-scope), whether the organisation may call (402 saying why: the wallet below the ' +
    'minimum balance of 1.00, the billing account suspended, earlier usage unpaid, or the plan call limit reached — its calls ' +
    "per cycle, or as many calls in progress as its plan allows at once: the plan's concurrentCalls, on pay-as-you-go " +
    'PARLEY_DEFAULT_CONCURRENT_CALLS, default 10) and the 5-second duplicate window (409), records the call, hands ' +
    'it to an engine (503 when none answers) and asks the carrier to place it (502 when it refuses; the record is then FAILED). ' +
    'An agent without a carrier number calls over an active OUTBOUND SIP configuration instead (that of callingNumber, ' +
    'else one assigned to the agent, else one of no agent; 400 "no calling number or SIP configuration" when there is ' +
    'none): its callingScope and allowedCountries (403), its maxConcurrentCalls (409), an engine (503) and then a SIP ' +
    'gateway (503 naming that no gateway took the call; 502 when it refused) place it. ' +
    'A future callTime only records the call (SCHEDULED); the scheduler places it when due, checking the wallet and the ' +
    'concurrent-call limit again (a call refused then is FAILED). The call is billed when it ends, if it was answered.',
  body: PlaceCallBody,
  response: { 201: Envelope(PlacedCall), ...authErrors, ...errors(402, 404, 409, 502, 503) },
};

export const CallbackBody = Type.Object(
  {
    roomName: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The Call ID of the earlier call (or chat conversation)',
    }),
    dialingNumber: Type.Optional(
      Type.String({
        maxLength: 16,
        description: "The number to call from; default the earlier call's, then the agent's",
      }),
    ),
    dateTime: Type.Optional(Type.String({ format: 'date-time', description: 'Future UTC ISO 8601; omit to call now' })),
    metaData: Type.Optional(JsonObject('Stored stringified as customVariables.callbackMetaData')),
  },
  { additionalProperties: false },
);
export type CallbackBody = Static<typeof CallbackBody>;

const PlacedCallback = Type.Object({
  success: Type.Boolean(),
  callType: Type.String(),
  roomName: Type.String({ description: "The new call's Call ID" }),
  sessionId: Type.String({ description: "The new call record's id" }),
  message: Type.String(),
  originalRoomName: Type.String(),
  originalSessionId: Type.String(),
  scheduledFor: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the callback is scheduled; null when placed now',
  }),
});

export const placeCallback = {
  tags: ['calls'],
  summary: 'Call back the person of an earlier call',
  description:
    "A new outbound call to the earlier call's number, by the same agent — for a chat conversation, by the chat agent's " +
    'callback voice agent (callbackAgentId). The checks and errors of POST /voice/session apply; 400 when the earlier call has no ' +
    "phone number or the chat agent no callback agent, 403 when the call is another organisation's, 404 when no call has that " +
    'room name.',
  body: CallbackBody,
  response: { 201: Envelope(PlacedCallback), ...authErrors, ...errors(402, 404, 409, 502, 503) },
};
