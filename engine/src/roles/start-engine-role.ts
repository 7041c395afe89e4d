/**
 * The engine role as `parley start` runs it: the role, its voice activity detection and, when configured, the media
 * endpoint carriers stream calls to. It sits above both engine-role.ts and media-endpoint.ts, which know nothing
 * of each other (the endpoint reaches calls through the StreamClaimer seam).
 */
import type { Bus } from '../bus/index.ts';
import type { MediaServer } from '../transports/media-server/media-server.ts';
import { requestCarrierTransfer } from './carrier-transfer.ts';
import type { EngineConfig } from './engine-config.ts';
import { EngineRole } from './engine-role.ts';
import { startMediaEndpoint } from './media-endpoint.ts';
import type { RoleLog } from './role-log.ts';
import { StreamTokens } from './stream-tokens.ts';
import { loadVoiceActivity } from './voice-activity.ts';
import { countWorkerPool } from '../metrics/worker-metrics.ts';
import { WorkerPool } from '../workers/client/worker-pool.ts';

/**
 * Starts the engine role as `parley start` runs it: voice activity per PARLEY_VAD and, when `config.media` is set,
 * the media websocket server on ENGINE_PORT that carriers stream calls to (`<mediaUrl>/media/<carrier>/<token>`).
 * @param options.mediaTimeoutMs how long an accepted call waits for its media (tests shorten it)
 */
export async function startEngineRole(
  config: EngineConfig,
  bus: Bus,
  log: RoleLog,
  options: { mediaTimeoutMs?: number } = {},
): Promise<EngineRole> {
  const tokens = new StreamTokens(
    config.media?.tokenSecret ? Buffer.from(config.media.tokenSecret, 'base64') : undefined,
  );
  const voiceActivity = await loadVoiceActivity(config, log);
  log('voice activity', { detector: voiceActivity.kind });
  let role: EngineRole | undefined;
  let media: MediaServer | undefined;
  try {
    // Streams arriving before the role exists (none should: no token has been issued yet) are refused as unknown.
    media = config.media
      ? await startMediaEndpoint(
          { claim: (token) => (role ? role.claim(token) : { ok: false, reason: 'unknown' }) },
          {
            port: config.media.port,
            host: config.media.host,
            webrtcExtraHosts: config.media.webrtcHosts,
            log,
            transfer: (callId, to) => requestCarrierTransfer(bus, callId, to),
            metricsToken: config.metricsToken,
          },
        )
      : undefined;
  } catch (error) {
    await voiceActivity.close();
    throw error;
  }
  if (media) log('media server listening', { port: media.port });
  // The workers alive on the bus: the pool gauges, and whether a call has a language model (docs/architecture.md §2).
  const workerPool = WorkerPool.watch(bus);
  const uncountPool = countWorkerPool(workerPool);
  role = new EngineRole(config, bus, log, {
    voiceActivity,
    tokens,
    workerPool,
    mediaTimeoutMs: options.mediaTimeoutMs,
    mediaUrl: media ? trimSlash(config.media?.publicUrl ?? `ws://127.0.0.1:${media.port}`) : undefined,
    onClose: async () => {
      uncountPool();
      workerPool.stop();
      await media?.close();
      await voiceActivity.close();
    },
  });
  return role.start();
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
