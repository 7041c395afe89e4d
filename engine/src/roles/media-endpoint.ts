/**
 * The engine's media endpoint: the media websocket server (ws-media-server.ts, behind the MediaServer seam) with
 * its two routes, `/media/<carrier>/<stream token>` (carrier streams) and `/webrtc/<stream token>` (a browser call's
 * signalling, transports/webrtc/; the same token rules, then ICE and DTLS within WEBRTC_CONNECT_TIMEOUT_MS).
 *
 * - A path that is neither route, or names a carrier without a media stream protocol, is answered 404 at the
 *   HTTP upgrade: no websocket is opened.
 * - The token is checked the moment the websocket opens: malformed, forged (its MAC does not match), expired,
 *   already used, or unknown (never issued here, or its call was given up) closes the socket with 1008 (policy
 *   violation) and a reason naming which, and no session exists. A good token is spent at once, so two
 *   connections can never race for one call.
 * - The stream then has STREAM_START_TIMEOUT_MS to say `start`; once it has, the call session runs on it. A stream
 *   that closes or stays silent before its start gives the call up (`media_failed`).
 */
import { CLOSE_CODES, type MediaServer, type MediaSocket } from '../transports/media-server/media-server.ts';
import { startWsMediaServer } from '../transports/media-server/ws-media-server.ts';
import { serveMetrics } from '../metrics/metrics-endpoint.ts';
import { carrierProtocol, CarrierTransport, type MediaCarrier } from '../transports/carrier-ws/index.ts';
import { WebRtcTransport } from '../transports/webrtc/webrtc-transport.ts';
import type { StreamClaim } from './stream-claim.ts';
import type { RoleLog } from './role-log.ts';

/** The first segment of every media stream path. */
export const MEDIA_PATH_PREFIX = '/media';
/** The first segment of a browser call's signalling path (`/webrtc/<token>`, docs/architecture.md §16). */
export const WEBRTC_PATH_PREFIX = '/webrtc';
/**
 * Addresses offered to browsers besides the machine's interfaces: loopback, which ICE leaves out by default, so a
 * browser on the engine's own machine (development, the tests) connects without any network interface.
 */
export const DEFAULT_WEBRTC_EXTRA_HOSTS: readonly string[] = ['127.0.0.1'];

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
  /** How long a browser has from opening its signalling socket to a connected peer connection, ms. */
  webrtcConnectTimeoutMs?: number;
  /** Host addresses offered to browsers besides the interfaces'; DEFAULT_WEBRTC_EXTRA_HOSTS by default. */
  webrtcExtraHosts?: readonly string[];
  /** Transfers a call through its carrier (the control plane's `v1.telephony.transfer`); none: calls cannot transfer. */
  transfer?: (callId: string, to: string) => Promise<void>;
  /** PARLEY_METRICS_TOKEN: GET /metrics on this port wants it as a bearer token; unset: open (docs/architecture.md §19). */
  metricsToken?: string;
}

/**
 * The URL a carrier opens for a call's media: what the control plane writes into the carrier's answer XML.
 * @param mediaUrl the engine's media URL from its dispatch reply (PARLEY_MEDIA_URL)
 */
export function mediaStreamUrl(mediaUrl: string, carrier: MediaCarrier, streamToken: string): string {
  return `${mediaUrl.replace(/\/+$/, '')}${MEDIA_PATH_PREFIX}/${carrier}/${encodeURIComponent(streamToken)}`;
}

/**
 * The signalling URL a browser opens for a web call: what POST /voice/session answers as `wsUrl`.
 * @param mediaUrl the engine's media URL from its dispatch reply (PARLEY_MEDIA_URL)
 */
export function webrtcSignallingUrl(mediaUrl: string, streamToken: string): string {
  return `${mediaUrl.replace(/\/+$/, '')}${WEBRTC_PATH_PREFIX}/${encodeURIComponent(streamToken)}`;
}

/** Starts the media server and routes its streams to the calls `claimer` holds. */
export function startMediaEndpoint(claimer: StreamClaimer, options: MediaEndpointOptions): Promise<MediaServer> {
  const { log } = options;
  return startWsMediaServer({
    port: options.port,
    host: options.host,
    pingIntervalMs: options.pingIntervalMs,
    plainRequest: (request, response) => serveMetrics(request, response, options.metricsToken),
    router: (request) => {
      const parts = request.path.split('/');
      if (parts.length === 3 && `/${parts[1]}` === WEBRTC_PATH_PREFIX) {
        const token = safeDecode(parts[2]!);
        return token ? (socket) => serveWebRtc(claimer, options, token, socket, request.remoteAddress) : undefined;
      }
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

/** A browser call: the token is claimed at once, the call runs once the peer connection is up. */
function serveWebRtc(
  claimer: StreamClaimer,
  options: MediaEndpointOptions,
  token: string,
  socket: MediaSocket,
  remoteAddress: string | undefined,
): void {
  const { log } = options;
  const claim = claimer.claim(token);
  if (!claim.ok) {
    log('webrtc call refused', { reason: claim.reason, remoteAddress });
    socket.close(CLOSE_CODES.policy, `stream token refused: ${claim.reason}`);
    return;
  }
  const { callId } = claim;
  const transport = new WebRtcTransport(socket, {
    connectTimeoutMs: options.webrtcConnectTimeoutMs,
    extraHostAddresses: [...(options.webrtcExtraHosts ?? DEFAULT_WEBRTC_EXTRA_HOSTS)],
  });
  transport.connected.then(
    () => {
      log('webrtc call connected', { callId, remoteAddress });
      claim.run(transport).then(
        (summary) => log('webrtc call ended', { callId, reason: summary.reason, stats: transport.stats }),
        (error: unknown) => log('webrtc call failed', { callId, error: String(error), stats: transport.stats }),
      );
    },
    (error: unknown) => {
      claim.abandon('media_failed');
      log('webrtc call failed before connecting', { callId, error: String(error), stats: transport.stats });
    },
  );
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment) || undefined;
  } catch {
    return undefined;
  }
}
