import { describe, expect, it } from 'vitest';
import { UtteranceAssembler, type DeepgramResults } from './deepgram-results.ts';

const results = (transcript: string, fields: Partial<DeepgramResults>): DeepgramResults => ({
  type: 'Results',
  channel: { alternatives: [{ transcript, confidence: 0.9 }] },
  ...fields,
});

describe('UtteranceAssembler', () => {
  it('passes interim results on as partials', () => {
    const assembler = new UtteranceAssembler();
    expect(assembler.take(results('I need', { is_final: false, start: 0, duration: 0.5 }))).toEqual([
      { type: 'partial', text: 'I need' },
    ]);
    expect(assembler.take(results('', { is_final: false }))).toEqual([]);
  });

  it('joins is_final segments into one final at speech_final, spanning their offsets', () => {
    const assembler = new UtteranceAssembler();
    expect(assembler.take(results('I need to', { is_final: true, start: 1.2, duration: 0.8 }))).toEqual([]);
    expect(assembler.take(results('change', { is_final: false, start: 2, duration: 0.3 }))).toEqual([
      { type: 'partial', text: 'I need to change' },
    ]);
    expect(
      assembler.take({
        type: 'Results',
        is_final: true,
        speech_final: true,
        start: 2,
        duration: 1.05,
        channel: { alternatives: [{ transcript: 'change my order.', confidence: 0.8 }] },
      }),
    ).toEqual([{ type: 'final', text: 'I need to change my order.', startMs: 1_200, endMs: 3_050, confidence: 0.8 }]);
    expect(assembler.flush()).toEqual([]);
  });

  it('settles the utterance on a from_finalize result, and ignores empty finals', () => {
    const assembler = new UtteranceAssembler();
    assembler.take(results('yes', { is_final: true, start: 0, duration: 0.4 }));
    expect(assembler.take(results('', { is_final: true, from_finalize: true, start: 0.4, duration: 0.1 }))).toEqual([
      { type: 'final', text: 'yes', startMs: 0, endMs: 400, confidence: 0.9 },
    ]);
    expect(assembler.take(results('', { is_final: true, speech_final: true }))).toEqual([]);
  });
});
