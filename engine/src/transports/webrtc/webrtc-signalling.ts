/**
 * The signalling of a browser call (docs/architecture.md §16): JSON text messages on the websocket
 * `/webrtc/<token>` of the engine's media server. The browser offers, the engine answers:
 *
 *   browser → engine  {type:"offer", sdp}            once, first: an SDP offer with one audio m-line (Opus)
 *                     {type:"candidate", candidate}  trickled ICE candidates (RTCIceCandidateInit); optional
 *                     {type:"hangup"}                the visitor ended the call (closing the socket does too)
 *   engine → browser  {type:"answer", sdp}           the engine's answer, its host candidates inside
 *                     {type:"hangup", reason}        the agent ended the call; the socket closes after it
 *
 * Parsing never throws: anything else is `malformed`, counted by the transport and otherwise ignored.
 */

/** Longest SDP read, characters: a browser's audio-only offer is 3–6 KB; 64 KB leaves room and bounds the parse. */
export const MAX_SDP_CHARS = 64 * 1024;
/** Longest candidate line read, characters: a real one is ~120. */
const MAX_CANDIDATE_CHARS = 1024;

/** A trickled ICE candidate, as RTCPeerConnection's `icecandidate` event gives it. */
export interface IceCandidateInit {
  candidate: string;
  sdpMid?: string | null;
  sdpMLineIndex?: number | null;
  usernameFragment?: string | null;
}

export type SignalIn =
  | { type: 'offer'; sdp: string }
  | { type: 'candidate'; candidate: IceCandidateInit }
  | { type: 'hangup' }
  | { type: 'malformed'; why: string };

export type SignalOut = { type: 'answer'; sdp: string } | { type: 'hangup'; reason: string };

export function parseSignal(text: string): SignalIn {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { type: 'malformed', why: 'not JSON' };
  }
  if (typeof message !== 'object' || message === null) return { type: 'malformed', why: 'not an object' };
  const m = message as Record<string, unknown>;
  switch (m.type) {
    case 'offer':
      if (typeof m.sdp !== 'string' || m.sdp.length === 0 || m.sdp.length > MAX_SDP_CHARS)
        return { type: 'malformed', why: 'offer without a usable sdp' };
      return { type: 'offer', sdp: m.sdp };
    case 'candidate':
      return parseCandidate(m.candidate);
    case 'hangup':
      return { type: 'hangup' };
    default:
      return { type: 'malformed', why: `unknown type ${JSON.stringify(m.type)?.slice(0, 40)}` };
  }
}

function parseCandidate(value: unknown): SignalIn {
  if (typeof value !== 'object' || value === null) return { type: 'malformed', why: 'candidate is not an object' };
  const c = value as Record<string, unknown>;
  if (typeof c.candidate !== 'string' || c.candidate.length > MAX_CANDIDATE_CHARS)
    return { type: 'malformed', why: 'candidate without a usable candidate line' };
  const sdpMid = typeof c.sdpMid === 'string' ? c.sdpMid : undefined;
  const sdpMLineIndex = typeof c.sdpMLineIndex === 'number' ? c.sdpMLineIndex : undefined;
  return { type: 'candidate', candidate: { candidate: c.candidate, sdpMid, sdpMLineIndex } };
}

export function encodeSignal(message: SignalOut): string {
  return JSON.stringify(message);
}
