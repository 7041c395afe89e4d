/**
 * The chat session token of POST /widget/bootstrap (`agentToken`): what opens one conversation's websocket and its
 * HTTP fallback for an hour (spec document 3). It is the conversation's facts signed with a key of the key ring for
 * this purpose alone — bound to the conversation (call id and roomName), its agent and its organisation — so the
 * control plane trusts nothing the browser echoes back and keeps no session table. Form: `<base64url JSON>.<key id>.<HMAC>`.
 */
import type { KeyRing } from '../secrets/key-ring.ts';

const PURPOSE = 'widget-chat-session';
/** Spec document 3: a widget chat session token is valid 1 hour. */
export const CHAT_SESSION_TOKEN_TTL_MS = 60 * 60_000;
/** Bounds the work a forged token can cause; a real one is about 250 characters. */
const MAX_TOKEN_LENGTH = 1000;

export interface ChatSessionClaims {
  /** The conversation's call record. */
  callId: string;
  roomName: string;
  agentId: string;
  organisationId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export function signChatSession(keyRing: KeyRing, claims: ChatSessionClaims): string {
  const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${body}.${keyRing.sign(PURPOSE, body)}`;
}

/** The claims of a token this key ring signed and that has not expired at `now`; undefined for anything else. */
export function readChatSession(keyRing: KeyRing, token: string, now = Date.now()): ChatSessionClaims | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const body = token.slice(0, dot);
  if (!keyRing.verify(PURPOSE, body, token.slice(dot + 1))) return undefined;
  let claims: ChatSessionClaims;
  try {
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ChatSessionClaims;
  } catch {
    return undefined;
  }
  const wellFormed =
    typeof claims.callId === 'string' &&
    typeof claims.roomName === 'string' &&
    typeof claims.agentId === 'string' &&
    typeof claims.organisationId === 'string' &&
    typeof claims.expiresAt === 'number';
  return wellFormed && claims.expiresAt > now ? claims : undefined;
}
