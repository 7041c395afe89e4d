/**
 * The SIP gateway's contract with the control plane and the engine (docs/architecture.md §4).
 *
 * Inbound: the gateway takes an INVITE and asks the control plane who answers it (`v1.sip.inbound`, request, queue
 * `control-plane`). The control plane matches a SIP configuration (dialled number and source), admits the call
 * (wallet, concurrency, scope), records it, dispatches it to an engine and replies with the call id and the engine's
 * one-use stream token — or with the SIP status to refuse with. The gateway answers 200 OK with its SDP and opens
 * the media bridge on `v1.media.<callId>.in/.out`: a `start` carrying the stream token first, then audio.
 *
 * Outbound: the control plane dispatches the call to an engine, then asks a gateway to INVITE the callee through an
 * outbound trunk (`v1.sip.dial`, request, queue `sip-gateway`). The gateway answers at once whether it took the
 * dial; the leg's progress (ringing, answered, busy, no answer, …) is published as a `telephony` call event on
 * `v1.call.<callId>.event`, the same durable stream the engine's events travel, so the control plane applies it
 * once, in order with the rest. On answer the gateway opens the media bridge exactly as for an inbound call.
 *
 * While a call lives, the control plane can hang up or transfer its SIP leg (`v1.sip.<callId>.control`), e.g. to
 * CANCEL a dial that is still ringing; once the engine session runs it usually ends the call through the media
 * bridge (`hangup`) instead.
 *
 * Media on the bus: binary frames (audio-frame.ts) are PCM16 mono at 8 kHz, 20 ms each (160 samples): the gateway
 * decodes G.711 before publishing and encodes after receiving, so the engine never sees a codec. Everything else on
 * the media subjects is one of the JSON messages below; an audio frame's magic byte tells the two apart.
 */
import { Type, type Static } from '@sinclair/typebox';
import { messageCodec } from './message-codec.ts';

/** The sample rate of audio frames on `v1.media.<callId>.in/.out`: G.711's own, so the gateway never resamples. */
export const SIP_MEDIA_SAMPLE_RATE = 8_000;
/** How long the gateway waits for the control plane's answer to an INVITE before refusing it 503, ms. */
export const SIP_INBOUND_TIMEOUT_MS = 12_000;
/**
 * How long a transfer may take, ms: the REFER's outcome (its NOTIFY) or the bridged new leg's ringing is given up
 * after this; the engine waits a little longer for the gateway's `transfer_result`.
 */
export const SIP_TRANSFER_TIMEOUT_MS = 30_000;

const SipTransport = Type.Union([Type.Literal('udp'), Type.Literal('tcp')]);

/** Where an outbound leg goes: the trunk of an OUTBOUND SIP configuration, with its credentials decrypted. */
export const SipTrunkTarget = Type.Object({
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 1, maximum: 65_535 }),
  transport: SipTransport,
  /** Digest credentials for the trunk's 401/407 challenges, when it asks. */
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  /** The From user (our calling number, E.164) and display name. */
  fromUser: Type.String({ minLength: 1 }),
  fromDisplayName: Type.Optional(Type.String()),
});
export type SipTrunkTarget = Static<typeof SipTrunkTarget>;

/** An INVITE the gateway received, as the control plane needs it to choose the answering configuration. */
export const SipInboundOffer = Type.Object({
  /** The gateway instance holding the dialog (its id, for logs and for control routed back to it). */
  gatewayId: Type.String({ minLength: 1 }),
  /** The INVITE's Call-ID header. */
  sipCallId: Type.String({ minLength: 1 }),
  /** The dialled number, E.164 when the Request-URI's or To's user part is a phone number, else the user part. */
  to: Type.String(),
  /** The caller, E.164 when the From user part is a phone number, else the user part. */
  from: Type.String(),
  /** The caller's display name from the From header, when given. */
  fromName: Type.Optional(Type.String()),
  requestUri: Type.String(),
  /** Where the INVITE came from: the trunk's address, matched against the configurations' sources. */
  sourceAddress: Type.String(),
  sourcePort: Type.Integer({ minimum: 1, maximum: 65_535 }),
  transport: SipTransport,
});
export type SipInboundOffer = Static<typeof SipInboundOffer>;

export const SipInboundReply = Type.Union([
  Type.Object({
    ok: Type.Literal(true),
    callId: Type.String({ minLength: 1 }),
    organisationId: Type.String({ minLength: 1 }),
    /** The engine's one-use token, presented in the media bridge's `start`. */
    streamToken: Type.String({ minLength: 1 }),
    /** The configuration that answers, so the gateway can apply its limits (queue, REFER). */
    sipConfigurationId: Type.String({ minLength: 1 }),
    /** Whether a transfer may be done by REFER; otherwise the gateway bridges a new leg. */
    referEnabled: Type.Boolean(),
    /**
     * The configuration's trunk, for a bridged transfer's new leg (`fromUser` the dialled number); without it the
     * gateway sends that INVITE back where this one came from, with no credentials.
     */
    trunk: Type.Optional(SipTrunkTarget),
  }),
  Type.Object({
    ok: Type.Literal(false),
    /** The SIP final response to refuse the INVITE with: 403 scope or suspended, 404 no configuration, 486 busy, … */
    sipStatus: Type.Integer({ minimum: 400, maximum: 699 }),
    reason: Type.String(),
    /** Machine-readable why, from the control plane's error registry (e.g. `insufficient_balance`). */
    code: Type.String(),
  }),
]);
export type SipInboundReply = Static<typeof SipInboundReply>;

export const SipDialRequest = Type.Object({
  callId: Type.String({ minLength: 1 }),
  organisationId: Type.String({ minLength: 1 }),
  /** The callee, E.164; the Request-URI is `sip:<to>@<trunk host>:<port>`. */
  to: Type.String({ minLength: 1 }),
  trunk: SipTrunkTarget,
  /** The engine's one-use token for the media bridge once the callee answers. */
  streamToken: Type.String({ minLength: 1 }),
  /** Ringing longer than this is given up (CANCEL, `no_answer`), ms. */
  ringTimeoutMs: Type.Integer({ minimum: 1_000, maximum: 300_000 }),
  sipConfigurationId: Type.String({ minLength: 1 }),
  referEnabled: Type.Boolean(),
});
export type SipDialRequest = Static<typeof SipDialRequest>;

export const SipDialReply = Type.Union([
  Type.Object({ ok: Type.Literal(true), gatewayId: Type.String() }),
  /** The gateway could not even try (no free RTP port, bad target): nothing was sent to the trunk. */
  Type.Object({ ok: Type.Literal(false), code: Type.String(), message: Type.String(), retryable: Type.Boolean() }),
]);
export type SipDialReply = Static<typeof SipDialReply>;

/**
 * A trunk a gateway keeps registered (RFC 3261 §10): the control plane lists every active trunk with `register` on
 * `v1.sip.registrations.list`, its password decrypted like a dial request's — the only other place it leaves the
 * control plane. The address of record is `sip:<username>@<host>`.
 */
export const SipRegistrationTarget = Type.Object({
  trunkId: Type.String({ minLength: 1 }),
  organisationId: Type.String({ minLength: 1 }),
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 1, maximum: 65_535 }),
  transport: SipTransport,
  username: Type.String({ minLength: 1 }),
  password: Type.Optional(Type.String()),
  /** The registration's life asked for, s; the registrar's 200 OK says what it granted. */
  expiresS: Type.Integer({ minimum: 60, maximum: 86_400 }),
});
export type SipRegistrationTarget = Static<typeof SipRegistrationTarget>;

export const SipRegistrationsRequest = Type.Object({ gatewayId: Type.String({ minLength: 1 }) });
export type SipRegistrationsRequest = Static<typeof SipRegistrationsRequest>;

export const SipRegistrationsReply = Type.Object({ registrations: Type.Array(SipRegistrationTarget) });
export type SipRegistrationsReply = Static<typeof SipRegistrationsReply>;

/** What became of one gateway's registration to one trunk (`v1.sip.registrations.state`). */
export const SIP_REGISTRATION_STATES = ['registering', 'registered', 'failing', 'unregistered'] as const;
export type SipRegistrationStateName = (typeof SIP_REGISTRATION_STATES)[number];

export const SipRegistrationState = Type.Object({
  gatewayId: Type.String({ minLength: 1 }),
  trunkId: Type.String({ minLength: 1 }),
  organisationId: Type.String({ minLength: 1 }),
  state: Type.Union(SIP_REGISTRATION_STATES.map((state) => Type.Literal(state))),
  /** The registrar's last final status (408 when it did not answer). */
  sipStatus: Type.Optional(Type.Integer({ minimum: 100, maximum: 699 })),
  reason: Type.Optional(Type.String()),
  /** When the granted registration runs out (ISO 8601), while registered. */
  expiresAt: Type.Optional(Type.String()),
  /** When this state was reached (ISO 8601). */
  at: Type.String(),
});
export type SipRegistrationState = Static<typeof SipRegistrationState>;

/** The control plane's orders for one live SIP leg (`v1.sip.<callId>.control`). */
export const SipCallControl = Type.Union([
  /** CANCEL while ringing, BYE once answered. */
  Type.Object({ type: Type.Literal('hangup'), reason: Type.String() }),
  /** REFER the far end to `to` (E.164 or a SIP URI) when allowed, else bridge a new leg. */
  Type.Object({ type: Type.Literal('transfer'), to: Type.String({ minLength: 1 }) }),
]);
export type SipCallControl = Static<typeof SipCallControl>;

/** What became of a SIP leg, as the `telephony` call event reports it. */
export const SIP_LEG_STATUSES = [
  'ringing',
  'answered',
  'busy',
  'no_answer',
  'rejected',
  'cancelled',
  'failed',
  'completed',
  'transferred',
] as const;
export type SipLegStatus = (typeof SIP_LEG_STATUSES)[number];

/** Gateway → engine on `v1.media.<callId>.in` (JSON; audio frames travel beside them). */
export const MediaBridgeInbound = Type.Union([
  /** The bridge opens: the engine claims its pending call with the token, then audio flows. */
  Type.Object({
    type: Type.Literal('start'),
    streamToken: Type.String({ minLength: 1 }),
    /** The codec negotiated on the SIP leg, for the record; frames on the bus are PCM16 whatever it is. */
    codec: Type.Union([Type.Literal('PCMU'), Type.Literal('PCMA')]),
    gatewayId: Type.String(),
  }),
  /** A key the caller pressed (RFC 4733 telephone-event, reported once per press at its end). */
  Type.Object({ type: Type.Literal('dtmf'), digit: Type.String({ minLength: 1, maxLength: 1 }) }),
  /** Everything queued before this mark has been sent to the caller. */
  Type.Object({ type: Type.Literal('mark'), name: Type.String() }),
  /**
   * How the engine's `transfer` went: ok once the far end accepted the REFER's outcome (NOTIFY 2xx) or the bridged
   * new leg answered — the engine then leaves the call; not ok (busy, no answer, refused) and the agent stays on.
   */
  Type.Object({
    type: Type.Literal('transfer_result'),
    ok: Type.Boolean(),
    sipStatus: Type.Optional(Type.Integer({ minimum: 100, maximum: 699 })),
    reason: Type.String(),
  }),
  /** The SIP leg is over (BYE from the far end, RTP silent too long, transfer done). */
  Type.Object({ type: Type.Literal('stop'), reason: Type.String() }),
]);
export type MediaBridgeInbound = Static<typeof MediaBridgeInbound>;

/** Engine → gateway on `v1.media.<callId>.out` (JSON; audio frames travel beside them). */
export const MediaBridgeOutbound = Type.Union([
  /** The engine took the call (the token was good): the gateway may start sending audio. */
  Type.Object({ type: Type.Literal('accepted') }),
  /** The token was bad, spent or expired: the gateway ends the leg. */
  Type.Object({ type: Type.Literal('rejected'), reason: Type.String() }),
  /** Echo this back as a `mark` once everything queued before it has been sent. */
  Type.Object({ type: Type.Literal('mark'), name: Type.String() }),
  /** Barge-in: drop everything queued and not yet sent; marks queued behind it are never echoed. */
  Type.Object({ type: Type.Literal('clear') }),
  /** Send these keys to the far end as RFC 4733 events. */
  Type.Object({ type: Type.Literal('dtmf'), digits: Type.String({ minLength: 1 }) }),
  /** The agent ended the call: BYE. */
  Type.Object({ type: Type.Literal('hangup'), reason: Type.String() }),
  /** Move the caller to `to`: REFER when the configuration allows it, else a new bridged leg. */
  Type.Object({ type: Type.Literal('transfer'), to: Type.String({ minLength: 1 }) }),
]);
export type MediaBridgeOutbound = Static<typeof MediaBridgeOutbound>;

export const sipCodecs = {
  inboundOffer: messageCodec(SipInboundOffer, 'SIP inbound offer'),
  inboundReply: messageCodec(SipInboundReply, 'SIP inbound reply'),
  dialRequest: messageCodec(SipDialRequest, 'SIP dial request'),
  dialReply: messageCodec(SipDialReply, 'SIP dial reply'),
  control: messageCodec(SipCallControl, 'SIP call control'),
  registrationsRequest: messageCodec(SipRegistrationsRequest, 'SIP registrations request'),
  registrationsReply: messageCodec(SipRegistrationsReply, 'SIP registrations reply'),
  registrationState: messageCodec(SipRegistrationState, 'SIP registration state'),
  bridgeIn: messageCodec(MediaBridgeInbound, 'media bridge message (in)'),
  bridgeOut: messageCodec(MediaBridgeOutbound, 'media bridge message (out)'),
} as const;
