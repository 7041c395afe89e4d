/**
 * LiveKit mode's side of a dispatched call (docs/architecture.md §16): no media connection comes to the engine, so
 * the engine claims the call itself and joins the call's room as the agent participant. The session starts once a
 * visitor is in the room; a room that cannot be joined, or no visitor within the media timeout, gives the call up
 * as `media_failed`, exactly as a media connection that never got going would.
 */
import type { CallSpec } from '../protocol/index.ts';
import { LiveKitTransport } from '../transports/livekit/livekit-transport.ts';
import type { RoleLog } from './role-log.ts';
import type { StreamClaim } from './stream-claim.ts';

export async function joinLiveKitRoom(
  claim: StreamClaim,
  livekit: NonNullable<CallSpec['livekit']>,
  log: RoleLog,
  visitorTimeoutMs: number,
): Promise<void> {
  if (!claim.ok) return;
  const { callId } = claim;
  let transport: LiveKitTransport;
  try {
    transport = await LiveKitTransport.join(livekit.url, livekit.token);
  } catch (error) {
    claim.abandon('media_failed');
    log('livekit join failed', { callId, room: livekit.room, error: String(error) });
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no visitor joined the room in time')), visitorTimeoutMs);
  });
  try {
    await Promise.race([transport.visitorPresent, timeout]);
  } catch (error) {
    transport.hangup('no visitor');
    claim.abandon('media_failed');
    log('livekit call failed before a visitor joined', { callId, room: livekit.room, error: String(error) });
    return;
  } finally {
    clearTimeout(timer);
  }
  log('livekit call connected', { callId, room: livekit.room });
  claim.run(transport).then(
    (summary) => log('livekit call ended', { callId, reason: summary.reason }),
    (error: unknown) => log('livekit call failed', { callId, error: String(error) }),
  );
}
