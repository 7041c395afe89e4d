import { describe, expect, it } from 'vitest';
import { interrupts, isBackchannel } from './barge-in.ts';

describe('barge-in decisions', () => {
  it('treats acknowledgements as backchannels', () => {
    for (const text of ['uh-huh', 'Okay.', 'yeah', 'mm-hmm', 'okay okay', 'Yeah, right.'])
      expect(isBackchannel(text)).toBe(true);
    for (const text of ['wait', 'no stop', 'okay but what about tuesday', '']) expect(isBackchannel(text)).toBe(false);
  });

  it('lets real words interrupt, but not backchannels', () => {
    expect(interrupts('hold on a second', 'your appointment is on tuesday', false)).toBe(true);
    expect(interrupts('uh-huh', 'your appointment is on tuesday', false)).toBe(false);
    expect(interrupts('', 'anything', false)).toBe(false);
  });

  it('on an echoing line, ignores the agent’s own words coming back', () => {
    const agent = 'your appointment is on tuesday at ten in the morning';
    expect(interrupts('appointment is on tuesday', agent, true)).toBe(false);
    expect(interrupts('tuesday at ten', agent, true)).toBe(false);
    expect(interrupts('no I need to cancel it', agent, true)).toBe(true);
  });
});
