import { describe, expect, it } from 'vitest';
import { KeyRing } from '../secrets/key-ring.ts';
import { CHAT_SESSION_TOKEN_TTL_MS, readChatSession, signChatSession } from './chat-session-token.ts';

const ring = KeyRing.generate('a').ring;
const now = Date.parse('2026-11-27T10:00:00Z');
const claims = {
  callId: 'c'.repeat(24),
  roomName: 'web-1',
  agentId: 'a'.repeat(24),
  organisationId: 'o'.repeat(24),
  expiresAt: now + CHAT_SESSION_TOKEN_TTL_MS,
};

describe('chat session tokens', () => {
  it('read back what was signed until the hour is over, and nothing after', () => {
    const token = signChatSession(ring, claims);
    expect(readChatSession(ring, token, now)).toEqual(claims);
    expect(readChatSession(ring, token, now + CHAT_SESSION_TOKEN_TTL_MS - 1)).toEqual(claims);
    expect(readChatSession(ring, token, now + CHAT_SESSION_TOKEN_TTL_MS)).toBeUndefined();
  });

  it('refuse edited claims, another key ring, another purpose and oversized input', () => {
    const token = signChatSession(ring, claims);
    const [, ...signature] = token.split('.');
    const edited = Buffer.from(JSON.stringify({ ...claims, callId: 'd'.repeat(24) })).toString('base64url');
    expect(readChatSession(ring, `${edited}.${signature.join('.')}`, now)).toBeUndefined();
    expect(readChatSession(KeyRing.generate('a').ring, token, now)).toBeUndefined();
    const body = token.split('.')[0]!;
    expect(readChatSession(ring, `${body}.${ring.sign('topup-quote', body)}`, now)).toBeUndefined();
    expect(readChatSession(ring, 'x'.repeat(2000), now)).toBeUndefined();
    expect(readChatSession(ring, '', now)).toBeUndefined();
  });
});
