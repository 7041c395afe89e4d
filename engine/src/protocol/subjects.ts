/**
 * Every NATS subject Parley uses (docs/architecture.md §4), built by functions so a typo is a compile error and a rename is
 * one edit. Ids passed in are checked to be single tokens. The `v1.` prefix versions the wire contract: a breaking
 * change gets `v2.` subjects served side by side during an upgrade.
 */
import { InvalidSubjectTokenError, subjectToken } from './subject-token.ts';

const PREFIX = 'v1';

/** Kinds of speech and language workers; each is its own queue group and subject family. */
export const WORKER_KINDS = ['stt', 'llm', 'tts'] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];

/** Queue group names: every member of a group is interchangeable, and each request goes to exactly one of them. */
export const queues = {
  /** Engines accepting dispatched calls (`v1.engine.dispatch`). */
  engine: 'engine',
  /** Control-plane instances answering greetings, transfers, SIP offers and knowledge searches. */
  controlPlane: 'control-plane',
  /** STT workers opening streams (`v1.stt.open`). */
  stt: 'stt',
  /** LLM workers opening streams (`v1.llm.open`). */
  llm: 'llm',
  /** TTS workers opening streams (`v1.tts.open`). */
  tts: 'tts',
  /** SIP gateways placing outbound legs (`v1.sip.dial`). */
  sipGateway: 'sip-gateway',
} as const satisfies Record<string, string> & Record<WorkerKind, string>;

export type QueueGroup = (typeof queues)[keyof typeof queues];

/** Checks at run time too: a kind often comes from configuration or a message, not from typed code. */
function workerKind(kind: WorkerKind): WorkerKind {
  if (!WORKER_KINDS.includes(kind)) {
    throw new InvalidSubjectTokenError('kind', String(kind), `it must be one of ${WORKER_KINDS.join(', ')}`);
  }
  return kind;
}

export const subjects = {
  /** Request (queue `engine`): a call spec in, the accepted session's stream token out. */
  dispatch: () => `${PREFIX}.engine.dispatch`,

  /** The engine session of a call subscribes here: end, transfer, say, inject. */
  callControl: (callId: string) => `${PREFIX}.call.${subjectToken('callId', callId)}.control`,
  /** The engine publishes a call's lifecycle, transcript, tool, DTMF, ended and recording events here. */
  callEvents: (callId: string) => `${PREFIX}.call.${subjectToken('callId', callId)}.event`,
  /** Wildcard over every call's events, for the control plane that persists them. */
  allCallEvents: () => `${PREFIX}.call.*.event`,

  /** Request (queue `stt`): opens a transcription stream, answers with its stream id. */
  sttOpen: () => `${PREFIX}.stt.open`,
  /** Binary PCM16 frames into an STT stream. */
  sttIn: (streamId: string) => `${PREFIX}.stt.${subjectToken('streamId', streamId)}.in`,
  /** Partial and final transcripts out of an STT stream. */
  sttOut: (streamId: string) => `${PREFIX}.stt.${subjectToken('streamId', streamId)}.out`,

  /** Request (queue `llm`): opens a language-model stream, answers with its stream id. */
  llmOpen: () => `${PREFIX}.llm.open`,
  /** Turn requests and cancels into an LLM stream. */
  llmIn: (streamId: string) => `${PREFIX}.llm.${subjectToken('streamId', streamId)}.in`,
  /** Tokens, tool calls and done out of an LLM stream. */
  llmOut: (streamId: string) => `${PREFIX}.llm.${subjectToken('streamId', streamId)}.out`,

  /** Request (queue `tts`): opens a synthesis stream, answers with its stream id. */
  ttsOpen: () => `${PREFIX}.tts.open`,
  /** Text clauses, flush and cancel into a TTS stream. */
  ttsIn: (streamId: string) => `${PREFIX}.tts.${subjectToken('streamId', streamId)}.in`,
  /** Audio chunks with sequence numbers out of a TTS stream. */
  ttsOut: (streamId: string) => `${PREFIX}.tts.${subjectToken('streamId', streamId)}.out`,
  /** Request (queue `tts`): the voices the TTS workers' providers offer (tts-voices.ts). */
  ttsVoices: () => `${PREFIX}.tts.voices`,

  /** Request (queue `control-plane`): an agent's cached greeting audio, or a miss (greeting-audio.ts). */
  greetingAudio: () => `${PREFIX}.greeting.audio`,

  /**
   * Request (queue `control-plane`): move a carrier call's caller to another number through the carrier's REST API
   * (a media websocket cannot transfer by itself); answers whether the carrier took it (call.ts CarrierTransfer).
   */
  carrierTransfer: () => `${PREFIX}.telephony.transfer`,

  /** The `open` request subject of a worker kind. */
  workerOpen: (kind: WorkerKind) => `${PREFIX}.${workerKind(kind)}.open`,

  /** The SIP gateway's media bridge into a call: PCM16 8 kHz frames and JSON start/dtmf/mark/stop (sip.ts). */
  mediaIn: (callId: string) => `${PREFIX}.media.${subjectToken('callId', callId)}.in`,
  /** The engine's side of the bridge: PCM16 8 kHz frames and JSON accepted/mark/clear/hangup/… (sip.ts). */
  mediaOut: (callId: string) => `${PREFIX}.media.${subjectToken('callId', callId)}.out`,

  /** Request (queue `control-plane`): who answers this INVITE — an admitted, dispatched call, or a SIP refusal. */
  sipInbound: () => `${PREFIX}.sip.inbound`,
  /** Request (queue `sip-gateway`): INVITE a callee through an outbound trunk for an already dispatched call. */
  sipDial: () => `${PREFIX}.sip.dial`,
  /** The gateway holding a call's SIP leg subscribes here: hang up or transfer it. */
  sipCallControl: (callId: string) => `${PREFIX}.sip.${subjectToken('callId', callId)}.control`,
  /** Request (queue `control-plane`): the trunks a gateway keeps registered, with their credentials (sip.ts). */
  sipRegistrations: () => `${PREFIX}.sip.registrations.list`,
  /** Published by the control plane to every gateway (no queue) when a trunk's registration may have changed. */
  sipRegistrationsChanged: () => `${PREFIX}.sip.registrations.changed`,
  /** Published by a gateway (taken by queue `control-plane`): one trunk registration's state changed. */
  sipRegistrationState: () => `${PREFIX}.sip.registrations.state`,

  /** Request (queue `control-plane`): knowledge and catalogue search for a call's agent. */
  kbSearch: () => `${PREFIX}.kb.search`,

  /** Broadcast: an API key id was revoked; every cache drops it now. */
  authRevoked: () => `${PREFIX}.auth.revoked`,
  /** Broadcast: an organisation, its members or their profiles changed; every control plane drops its cached copy. */
  organisationChanged: () => `${PREFIX}.org.changed`,

  /** A worker's liveness and load. */
  workerHeartbeat: (kind: WorkerKind, workerId: string) =>
    `${PREFIX}.worker.${workerKind(kind)}.${subjectToken('workerId', workerId)}.heartbeat`,
  /** Wildcard over every worker's heartbeat, for whoever tracks liveness. */
  allWorkerHeartbeats: () => `${PREFIX}.worker.*.*.heartbeat`,
} as const;
