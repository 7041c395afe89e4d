/**
 * The engine's end of the SIP gateway's media bridge (docs/architecture.md §11): for each call it accepts, the
 * engine listens on `v1.media.<callId>.in` until a media connection claims the call. A gateway's `start` there
 * presents the stream token exactly as a carrier's websocket does at the media endpoint: a good token is spent,
 * `accepted` goes back on `.out` and the call session runs on a BusBridgeTransport; a bad one gets `rejected`
 * (and the gateway hangs up). When the call is claimed another way, or given up, the listener goes.
 */
import type { Bus, Subscription } from '../bus/index.ts';
import { isAudioFrame, sipCodecs, subjects, type MediaBridgeOutbound } from '../protocol/index.ts';
import { BusBridgeTransport } from '../transports/bus-bridge/bus-bridge-transport.ts';
import type { RoleLog } from './role-log.ts';
import type { StreamClaim } from './stream-claim.ts';

export interface BridgeListener {
  /** Stops listening, unless the bridge itself claimed the call (its transport owns the subscription then). */
  release(): void;
}

export function listenForBridge(
  bus: Bus,
  callId: string,
  claim: (streamToken: string) => StreamClaim,
  log: RoleLog,
): BridgeListener {
  const subscription: Subscription = bus.subscribe(subjects.mediaIn(callId));
  let state: 'waiting' | 'claiming' | 'running' | 'closed' = 'waiting';
  let transport: BusBridgeTransport | undefined;
  const reply = (message: MediaBridgeOutbound) =>
    bus.publish(subjects.mediaOut(callId), sipCodecs.bridgeOut.encode(message));
  const close = () => {
    state = 'closed';
    subscription.unsubscribe();
  };

  void (async () => {
    for await (const message of subscription) {
      if (transport) {
        transport.receive(message.data);
        continue;
      }
      if (state !== 'waiting' || isAudioFrame(message.data)) continue;
      let start;
      try {
        start = sipCodecs.bridgeIn.decode(message.data);
      } catch {
        continue;
      }
      if (start.type !== 'start') continue;
      state = 'claiming';
      const claimed = claim(start.streamToken);
      if (!claimed.ok || claimed.callId !== callId) {
        if (claimed.ok) claimed.abandon('media_failed');
        reply({ type: 'rejected', reason: claimed.ok ? 'token of another call' : claimed.reason });
        log('media bridge refused', { callId, reason: claimed.ok ? 'token of another call' : claimed.reason });
        close();
        return;
      }
      state = 'running';
      const bridge = new BusBridgeTransport(bus, callId);
      transport = bridge;
      reply({ type: 'accepted' });
      log('media bridge started', { callId, codec: start.codec, gatewayId: start.gatewayId });
      claimed.run(bridge).then(
        (summary) => {
          log('media bridge ended', { callId, reason: summary.reason, stats: bridge.stats });
          close();
        },
        (error: unknown) => {
          log('media bridge failed', { callId, error: String(error), stats: bridge.stats });
          bridge.end();
          close();
        },
      );
    }
  })().catch(() => {});

  return {
    release() {
      if (state === 'waiting') close();
    },
  };
}
