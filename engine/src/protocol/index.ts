/** The wire contract (engine/package.json `exports` "./protocol"): subjects and queue groups of DESIGN.md §4. */
export { queues, subjects, WORKER_KINDS, type QueueGroup, type WorkerKind } from './subjects.ts';
export { InvalidSubjectTokenError, MAX_SUBJECT_TOKEN_LENGTH, subjectToken } from './subject-token.ts';
