/** The wire contract (engine/package.json `exports` "./protocol"): subjects, queue groups and message formats. */
export { queues, subjects, WORKER_KINDS, type QueueGroup, type WorkerKind } from './subjects.ts';
export { InvalidSubjectTokenError, MAX_SUBJECT_TOKEN_LENGTH, subjectToken } from './subject-token.ts';
export * from './audio-frame.ts';
export { messageCodec, ProtocolError, type MessageCodec } from './message-codec.ts';
export * from './worker-streams.ts';
export * from './tts-voices.ts';
export * from './call.ts';
export * from './flow-definition.ts';
export * from './template.ts';
export * from './greeting-audio.ts';
export * from './sip.ts';
export * from './knowledge-search.ts';
export * from './engine-heartbeat.ts';
