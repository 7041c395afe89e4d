/**
 * The call's wire messages (docs/architecture.md §3, §4): the dispatch request that hands a call to an engine, the control
 * messages the control plane sends to a running call, and the events the call publishes as it happens.
 */
import { Type, type Static } from '@sinclair/typebox';
import { messageCodec } from './message-codec.ts';
import { SIP_LEG_STATUSES } from './sip.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

export const WebhookToolSpec = Type.Object({
  key: Type.String(),
  description: Type.String(),
  parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  url: Type.String(),
  method: Type.Optional(Type.Union((['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map((m) => Type.Literal(m)))),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  bearerToken: Type.Optional(Type.String()),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
});

/** What the engine needs of an agent, snapshotted at dispatch so a call is not changed by edits made during it. */
export const AgentSnapshot = Type.Object({
  id: Type.String(),
  /** The agent's version when dispatched: with it the engine asks the control plane for the cached greeting. */
  version: Type.Optional(Type.Integer({ minimum: 1 })),
  name: Type.String(),
  agentType: Type.Union([Type.Literal('VOICE'), Type.Literal('CHAT')]),
  builderMode: Type.Union([Type.Literal('PROMPT'), Type.Literal('FLOW')]),
  agentIdentity: Type.String(),
  agentPersonality: Nullable(Type.String()),
  agentTask: Nullable(Type.String()),
  pronunciation: Nullable(Type.String()),
  languageAccent: Nullable(Type.String()),
  greetingMessage: Nullable(Type.String()),
  closingMessage: Nullable(Type.String()),
  escalationMessage: Nullable(Type.String()),
  voicemailMessage: Nullable(Type.String()),
  language: Type.String(),
  voiceProvider: Nullable(Type.String()),
  voiceId: Nullable(Type.String()),
  voiceSpeed: Type.Optional(Type.Number()),
  sttProvider: Nullable(Type.String()),
  sttMode: Nullable(Type.String()),
  customVariables: Type.Record(Type.String(), Type.Unknown()),
  functionTools: Type.Array(WebhookToolSpec),
  contextMemory: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  flowDefinition: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  /** Where a handover (FLOW handover step, transfer) sends the call: the agent's handoverData number. */
  handoverNumber: Nullable(Type.String()),
  /** Turn-taking overrides, ms. */
  turn: Type.Optional(
    Type.Object({
      endpointingMs: Type.Optional(Type.Integer({ minimum: 100 })),
      minSpeechMs: Type.Optional(Type.Integer({ minimum: 40 })),
    }),
  ),
});
export type AgentSnapshot = Static<typeof AgentSnapshot>;

export const CallSpec = Type.Object({
  callId: Type.String(),
  organisationId: Type.String(),
  agent: AgentSnapshot,
  direction: Type.Union([Type.Literal('INBOUND'), Type.Literal('OUTBOUND')]),
  participant: Type.Object({ name: Type.Optional(Type.String()), phoneNumber: Type.Optional(Type.String()) }),
  /** The call's variables: the agent's defaults merged with the call's own. */
  variables: Type.Record(Type.String(), Type.Unknown()),
  limits: Type.Object({
    /**
     * How long the accepted call waits for its media to connect, ms (the stream token lives as long): a leg the SIP
     * gateway dials rings first, so it needs its ring time on top. Default the engine's MEDIA_CONNECT_TIMEOUT_MS.
     */
    mediaConnectMs: Type.Optional(Type.Integer({ minimum: 1_000, maximum: 600_000 })),
    /** The call ends after this long, ms. */
    maxDurationMs: Type.Integer({ minimum: 1_000 }),
    /** Caller silence before a nudge and then the end, ms. */
    inactivityMs: Type.Integer({ minimum: 1_000 }),
  }),
  /**
   * A browser call in LiveKit mode (docs/architecture.md §16): the engine joins this room itself as the agent
   * participant, with this access token, instead of waiting for a media connection. Absent for every other call.
   */
  livekit: Type.Optional(Type.Object({ url: Type.String(), room: Type.String(), token: Type.String() })),
});
export type CallSpec = Static<typeof CallSpec>;

/** The engine's answer to a dispatch: the token the call's media connection presents, or why it refused. */
export const DispatchReply = Type.Union([
  Type.Object({
    ok: Type.Literal(true),
    engineId: Type.String(),
    /** Authorises one media connection to this call, once, until the ring timeout: signed, short-lived, opaque. */
    streamToken: Type.String(),
    /**
     * Where carriers reach this engine's media server (its PARLEY_MEDIA_URL, e.g. `wss://media.example.com`), when
     * it runs one. A carrier's stream URL is `<mediaUrl>/media/<carrier>/<streamToken>` (`mediaStreamUrl` of
     * `@parley/engine`), carrier one of carrier-a, carrier-b, carrier-c.
     */
    mediaUrl: Type.Optional(Type.String()),
  }),
  Type.Object({ ok: Type.Literal(false), code: Type.String(), message: Type.String(), retryable: Type.Boolean() }),
]);
export type DispatchReply = Static<typeof DispatchReply>;

export const CallControl = Type.Union([
  Type.Object({ type: Type.Literal('end'), reason: Type.String() }),
  Type.Object({ type: Type.Literal('say'), text: Type.String() }),
  Type.Object({ type: Type.Literal('inject'), text: Type.String() }),
  Type.Object({ type: Type.Literal('transfer'), to: Type.String() }),
]);
export type CallControl = Static<typeof CallControl>;

export const CALL_STATES = ['connecting', 'greeting', 'listening', 'thinking', 'speaking', 'ending', 'ended'] as const;
export type CallState = (typeof CALL_STATES)[number];

export const TurnLatency = Type.Object({
  turn: Type.Integer(),
  /** From the end of the caller's speech to the turn being declared over, ms. */
  endpointingMs: Type.Number(),
  /** From the end of speech to the recogniser's final, ms (absent when the turn ended before a final). */
  sttFinalMs: Type.Optional(Type.Number()),
  /** From sending the turn to the first token, ms. */
  llmFirstTokenMs: Type.Optional(Type.Number()),
  /** From sending the first clause to its first audio, ms. */
  ttsFirstByteMs: Type.Optional(Type.Number()),
  /** From the end of the caller's speech to the first agent audio frame out, ms. */
  endToEndMs: Type.Optional(Type.Number()),
});
export type TurnLatency = Static<typeof TurnLatency>;

export const LatencyReport = Type.Object({
  /** From the call being answered to the first greeting frame out, ms. */
  greetingMs: Type.Optional(Type.Number()),
  turns: Type.Array(TurnLatency),
});
export type LatencyReport = Static<typeof LatencyReport>;

export const CallEvent = Type.Union([
  Type.Object({
    type: Type.Literal('state'),
    state: Type.Union(CALL_STATES.map((s) => Type.Literal(s))),
    atMs: Type.Number(),
    /** When it happened, epoch ms: what the record's answeredAt is set from, however late the event is stored. */
    atEpochMs: Type.Optional(Type.Number()),
  }),
  Type.Object({
    type: Type.Literal('transcript'),
    speaker: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
    text: Type.String(),
    startMs: Type.Number(),
    endMs: Type.Number(),
    /** An agent line cut short by barge-in: `text` is what was actually played. */
    interrupted: Type.Optional(Type.Boolean()),
  }),
  Type.Object({
    type: Type.Literal('tool_call'),
    name: Type.String(),
    arguments: Type.String(),
    ok: Type.Boolean(),
    result: Type.String(),
    durationMs: Type.Number(),
    atMs: Type.Number(),
  }),
  Type.Object({ type: Type.Literal('dtmf'), digit: Type.String(), atMs: Type.Number() }),
  Type.Object({
    type: Type.Literal('ended'),
    reason: Type.String(),
    /** completed, no_answer, voicemail, failed, … */
    outcome: Type.String(),
    durationMs: Type.Number(),
    latency: LatencyReport,
    /** When the call ended, epoch ms: the record's endedAt, however late the event is stored (§18). */
    atEpochMs: Type.Optional(Type.Number()),
  }),
  /** The phone leg's progress as the SIP gateway saw it (sip.ts): ringing, answered, busy, no_answer, … */
  Type.Object({
    type: Type.Literal('telephony'),
    status: Type.Union(SIP_LEG_STATUSES.map((s) => Type.Literal(s))),
    /** The SIP final response behind a failure (486, 480, 603, …). */
    sipStatus: Type.Optional(Type.Integer({ minimum: 100, maximum: 699 })),
    reason: Type.Optional(Type.String()),
    /** When the gateway saw it, epoch ms (the engine's `atMs` counts from its session start, this leg has none). */
    atEpochMs: Type.Number(),
  }),
  Type.Object({
    type: Type.Literal('recording'),
    path: Type.String(),
    format: Type.String(),
    durationMs: Type.Number(),
  }),
  /** A FLOW agent's result: the outcome it reached, what it captured, and the steps it took. */
  Type.Object({
    type: Type.Literal('result'),
    source: Type.Literal('flow'),
    outcomeKey: Type.String(),
    outcomeLabel: Type.String(),
    captured: Type.Record(Type.String(), Type.Unknown()),
    flowPath: Type.Array(Type.String()),
  }),
]);
export type CallEvent = Static<typeof CallEvent>;

/** A carrier call's transfer, asked of the control plane (`v1.telephony.transfer`). */
export const CarrierTransferRequest = Type.Object({
  callId: Type.String({ minLength: 1 }),
  /** E.164. */
  to: Type.String({ minLength: 1 }),
});
export type CarrierTransferRequest = Static<typeof CarrierTransferRequest>;

export const CarrierTransferReply = Type.Object({
  ok: Type.Boolean(),
  /** Why not, when not. */
  message: Type.Optional(Type.String()),
});
export type CarrierTransferReply = Static<typeof CarrierTransferReply>;

export const callCodecs = {
  spec: messageCodec(CallSpec, 'call spec'),
  dispatchReply: messageCodec(DispatchReply, 'dispatch reply'),
  control: messageCodec(CallControl, 'call control'),
  event: messageCodec(CallEvent, 'call event'),
  transferRequest: messageCodec(CarrierTransferRequest, 'carrier transfer request'),
  transferReply: messageCodec(CarrierTransferReply, 'carrier transfer reply'),
} as const;
