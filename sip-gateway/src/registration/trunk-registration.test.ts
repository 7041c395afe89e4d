/** The pure parts of a trunk registration: the user part of its URIs and when a grant is refreshed. */
import { describe, expect, it } from 'vitest';
import { refreshDelayMs, uriUser } from './trunk-registration.ts';

describe('trunk registration', () => {
  it('escapes a user name for the URI and leaves the characters SIP allows', () => {
    expect(uriUser('pbx-user_1.a')).toBe('pbx-user_1.a');
    expect(uriUser('+4420;x=1')).toBe('+4420;x=1');
    expect(uriUser('pbx user@office')).toBe('pbx%20user%40office');
    expect(uriUser('zoë')).toBe('zo%C3%AB');
  });

  it('refreshes a short grant at its half and a long one a minute before its end', () => {
    expect(refreshDelayMs(4)).toBe(2_000);
    expect(refreshDelayMs(120)).toBe(60_000);
    expect(refreshDelayMs(3_600)).toBe(3_540_000);
  });
});
