/**
 * The engine's media endpoint: the media websocket server (ws-media-server.ts, behind the MediaServer seam) with
 * its one route, `/media/<carrier>/<stream token>`.
 *
 * - A path that is not that route, or names a carrier without a media stream protocol, is answered 404 at the
 *   HTTP upgrade: no websocket is opened.
 * - The token is checked the moment the websocket opens: malformed, forged (its MAC does not match), expired,
 *   already used, or unknown (never issued here, or its call was given up) closes the socket with 1008 (policy
 *   violation) and a reason naming which, and no session exists. A good token is spent at once, so two
 *   connections can never race for one call.
 * - The stream then has STREAM_START_TIMEOUT_MS to say `start`; once it has, the call session runs on it. A stream
 *   that closes or stays silent before its start gives the call up (`media_failed`).
 */
import { CLOSE_CODES, type MediaServer } from '../transports/media-server/media-server.ts';
import { startWsMediaServer } from '../transports/media-server/ws-media-server.ts';
import { carrierProtocol, CarrierTransport, type MediaCarrier } from '../transports/carrier-ws/index.ts';
import type { StreamClaim } from './stream-claim.ts';
import type { RoleLog } from './role-log.ts';

/** The first segment of every media stream path. */
export const MEDIA_PATH_PREFIX = '/media';

/** What the endpoint needs of the engine: the claim on a call by its stream token (EngineRole.claim). */
export interface StreamClaimer {
  claim(streamToken: string): StreamClaim;
}

export interface MediaEndpointOptions {
  /** ENGINE_PORT; 0 picks a free port. */
  port: number;
  host?: string;
  log: RoleLog;
  /** How long a stream may take to say `start`, ms. */
  startTimeoutMs?: number;
  /** Heartbeat period of the media server, ms. */
  pingIntervalMs?: number;
  /** Transfers a call through its carrier (the control plane's `v1.telephony.transfer`); none: calls cannot transfer. */
  transfer?: (callId: string, to: string) => Promise<void>;
}

/**
 * The URL a carrier opens for a call's media: what the control plane writes into the carrier's answer XML.
 * @param mediaUrl the engine's media URL from its dispatch reply (PARLEY_MEDIA_URL)
 */
export function mediaStreamUrl(mediaUrl: string, carrier: MediaCarrier, streamToken: string): string {
  return `${mediaUrl.replace(/\/+$/, '')}${MEDIA_PATH_PREFIX}/${carrier}/${encodeURIComponent(streamToken)}`;
}

/** Starts the media server and routes its streams to the calls `claimer` holds. */
export function startMediaEndpoint(claimer: StreamClaimer, options: MediaEndpointOptions): Promise<MediaServer> {
  const { log } = options;
  return startWsMediaServer({
    port: options.port,
    host: options.host,
    pingIntervalMs: options.pingIntervalMs,
    router: (request) => {
      const parts = request.path.split('/');
      if (parts.length !== 4 || `/${parts[1]}` !== MEDIA_PATH_PREFIX) return undefined;
      const protocol = carrierProtocol(parts[2]!);
      const token = safeDecode(parts[3]!);
      if (!protocol || !token) return undefined;
      return (socket) => {
        const claim = claimer.claim(token);
        if (!claim.ok) {
          log(
            'media stream refused',
            { carrier: protocol.carrier, reason: claim.reason, remoteAddress: request.remoteAddress },
            'warn',
          );
          socket.close(CLOSE_CODES.policy, `stream token refused: ${claim.reason}`);
          return;
        }
        const { callId } = claim;
        const transfer = options.transfer;
        const transport = new CarrierTransport(socket, protocol, {
          startTimeoutMs: options.startTimeoutMs,
          transfer: transfer && ((to) => transfer(callId, to)),
        });
        transport.started.then(
          (start) => {
            log('media stream started', {
              carrier: protocol.carrier,
              callId,
              streamId: start.streamId,
              format: start.format,
            });
            claim.run(transport).then(
              (summary) =>
                log('media stream ended', {
                  carrier: protocol.carrier,
                  callId,
                  reason: summary.reason,
                  stats: transport.stats,
                }),
              (error: unknown) =>
                log(
                  'media stream failed',
                  { carrier: protocol.carrier, callId, error: String(error), stats: transport.stats },
                  'error',
                ),
            );
          },
          (error: unknown) => {
            claim.abandon('media_failed');
            log(
              'media stream failed before start',
              { carrier: protocol.carrier, callId, error: String(error), stats: transport.stats },
              'warn',
            );
          },
        );
      };
    },
  });
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment) || undefined;
  } catch {
    return undefined;
  }
}
