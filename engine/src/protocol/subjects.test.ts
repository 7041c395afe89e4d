import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InvalidSubjectTokenError, MAX_SUBJECT_TOKEN_LENGTH } from './subject-token.ts';
import { queues, subjects, type WorkerKind } from './subjects.ts';

describe('subjects', () => {
  it('builds the fixed subjects of the wire contract', () => {
    expect(subjects.dispatch()).toBe('v1.engine.dispatch');
    expect(subjects.sttOpen()).toBe('v1.stt.open');
    expect(subjects.llmOpen()).toBe('v1.llm.open');
    expect(subjects.ttsOpen()).toBe('v1.tts.open');
    expect(subjects.ttsVoices()).toBe('v1.tts.voices');
    expect(subjects.kbSearch()).toBe('v1.kb.search');
    expect(subjects.authRevoked()).toBe('v1.auth.revoked');
    expect(subjects.organisationChanged()).toBe('v1.org.changed');
    expect(subjects.allCallEvents()).toBe('v1.call.*.event');
    expect(subjects.allWorkerHeartbeats()).toBe('v1.worker.*.*.heartbeat');
  });

  it('puts ids in their place', () => {
    expect(subjects.callControl('c1')).toBe('v1.call.c1.control');
    expect(subjects.callEvents('c1')).toBe('v1.call.c1.event');
    expect(subjects.sttIn('s1')).toBe('v1.stt.s1.in');
    expect(subjects.sttOut('s1')).toBe('v1.stt.s1.out');
    expect(subjects.llmIn('s1')).toBe('v1.llm.s1.in');
    expect(subjects.llmOut('s1')).toBe('v1.llm.s1.out');
    expect(subjects.ttsIn('s1')).toBe('v1.tts.s1.in');
    expect(subjects.ttsOut('s1')).toBe('v1.tts.s1.out');
    expect(subjects.mediaIn('c1')).toBe('v1.media.c1.in');
    expect(subjects.mediaOut('c1')).toBe('v1.media.c1.out');
    expect(subjects.workerHeartbeat('stt', 'w-7')).toBe('v1.worker.stt.w-7.heartbeat');
    expect(subjects.workerOpen('tts')).toBe(subjects.ttsOpen());
  });

  it('accepts UUIDs as ids', () => {
    fc.assert(fc.property(fc.uuid(), (id) => subjects.callEvents(id) === `v1.call.${id}.event`));
  });

  it.each(['', 'a.b', 'a b', '*', '>', 'a*', 'x>', 'tab\there', 'line\nbreak', 'nul\u0000'])(
    'refuses the id %j, naming the parameter',
    (id) => {
      expect(() => subjects.callEvents(id)).toThrow(InvalidSubjectTokenError);
      expect(() => subjects.sttIn(id)).toThrow(/streamId/);
      expect(() => subjects.workerHeartbeat('llm', id)).toThrow(/workerId/);
    },
  );

  it('refuses ids longer than the limit', () => {
    expect(() => subjects.callControl('x'.repeat(MAX_SUBJECT_TOKEN_LENGTH + 1))).toThrow(InvalidSubjectTokenError);
    expect(subjects.callControl('x'.repeat(MAX_SUBJECT_TOKEN_LENGTH))).toContain('x');
  });

  it('refuses an unknown worker kind at run time', () => {
    expect(() => subjects.workerHeartbeat('asr' as WorkerKind, 'w1')).toThrow(InvalidSubjectTokenError);
  });

  it('gives the error a code and the field name', () => {
    try {
      subjects.mediaIn('a.b');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidSubjectTokenError);
      expect((err as InvalidSubjectTokenError).code).toBe('invalid_subject_token');
      expect((err as InvalidSubjectTokenError).field).toBe('callId');
      expect((err as InvalidSubjectTokenError).retryable).toBe(false);
    }
  });

  it('names the queue groups of docs/architecture.md §4', () => {
    expect(queues).toEqual({
      engine: 'engine',
      controlPlane: 'control-plane',
      stt: 'stt',
      llm: 'llm',
      tts: 'tts',
      sipGateway: 'sip-gateway',
    });
  });
});
