/**
 * LiveKit mode's tokens (docs/architecture.md §16): with LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET set, a
 * browser call happens in a LiveKit room named after the call (its roomName) instead of on the engine's own WebRTC
 * endpoint. Two LiveKit access tokens (JWTs signed with the API secret, made by livekit-server-sdk) are minted per
 * call: the visitor's, answered to the browser, and the agent's, handed to the engine in the call's spec so it joins
 * the same room. Each may join that one room only, publish and subscribe audio, and expires after
 * LIVEKIT_TOKEN_TTL_SECONDS: a token is for joining, the room itself outlives it.
 */
import { AccessToken, TrackSource } from 'livekit-server-sdk';

/** How long a LiveKit token lets its holder join, s: the engine's media timeout (60 s), with room for a slow page. */
export const LIVEKIT_TOKEN_TTL_SECONDS = 120;

export interface LiveKitConfig {
  /** LIVEKIT_URL: where browsers and the engine reach the LiveKit server (wss://…). */
  url: string;
  apiKey: string;
  apiSecret: string;
}

export interface LiveKitCallTokens {
  /** The browser's token: identity `visitor-<callId>`. */
  visitor: string;
  /** The engine's token: identity `agent-<callId>`, marked as the agent in the participant's attributes. */
  agent: string;
}

export async function liveKitCallTokens(
  config: LiveKitConfig,
  call: { callId: string; roomName: string; participantName: string },
): Promise<LiveKitCallTokens> {
  const mint = (identity: string, name: string, attributes: Record<string, string>) => {
    const token = new AccessToken(config.apiKey, config.apiSecret, {
      identity,
      name,
      ttl: LIVEKIT_TOKEN_TTL_SECONDS,
      attributes,
      metadata: JSON.stringify({ callId: call.callId }),
    });
    token.addGrant({
      room: call.roomName,
      roomJoin: true,
      canPublish: true,
      canSubscribe: true,
      canPublishData: false,
      canPublishSources: [TrackSource.MICROPHONE],
    });
    return token.toJwt();
  };
  const [visitor, agent] = await Promise.all([
    mint(`visitor-${call.callId}`, call.participantName, { 'parley.role': 'visitor' }),
    mint(`agent-${call.callId}`, 'Agent', { 'parley.role': 'agent' }),
  ]);
  return { visitor, agent };
}
