/**
 * Handing a phone call to an engine (docs/architecture.md §3 step 2): a request on `v1.engine.dispatch` that one engine takes;
 * its answer names its media server and a one-use stream token, from which the carrier's stream URL is made. The
 * record moves to INITIATED; when no engine takes the call it is finished FAILED and 503 thrown, saying why: the
 * engine's refusal (which worker is missing, and what to install or set), or that no engine answered.
 */
import { mediaStreamUrl, webrtcSignallingUrl, type MediaCarrier } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { isBusError } from '@parley/engine/bus';
import { callCodecs, ENGINE_DRAINING, subjects, type CallSpec } from '@parley/engine/protocol';
import type { Sql } from '../../db/database.ts';
import { ApiError } from '../../errors.ts';
import { finishCall, markDispatched } from '../repository/call-repository.ts';

/** How long an engine has to accept a dispatch, ms: above the engine's own wait for workers (OPEN_DEADLINE_MS, 8 s). */
export const DISPATCH_TIMEOUT_MS = 10_000;

/** Dispatches refused by draining engines before the call is given up: each engine drains once. */
const DRAINING_RETRIES = 5;

/** The 503's reason when no engine answered the dispatch at all. */
export const NO_ENGINE =
  'no engine accepted the call (is a process with the engine role running? parley start runs one)';

/** What an engine answered a bridged dispatch with. */
export interface BridgedDispatch {
  engineId: string;
  /** The engine's one-use token, presented in the media bridge's `start`. */
  streamToken: string;
}

export type PlacementLog = (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;

export class EngineDispatcher {
  readonly #sql: Sql;
  readonly #bus: Bus;
  readonly #log: PlacementLog;

  constructor(sql: Sql, bus: Bus, log: PlacementLog = () => {}) {
    this.#sql = sql;
    this.#bus = bus;
    this.#log = log;
  }

  /** Dispatches the call; answers the URL the carrier streams it to, speaking `media`'s protocol. */
  async dispatch(spec: CallSpec, media: MediaCarrier): Promise<string> {
    const { mediaUrl, streamToken } = await this.#dispatchToMediaServer(spec);
    return mediaStreamUrl(mediaUrl, media, streamToken);
  }

  /**
   * Dispatches a browser call (docs/architecture.md §16): answers the engine's one-use stream token — the call's
   * participant token — and the signalling URL the browser opens with it.
   */
  async dispatchWeb(spec: CallSpec): Promise<{ token: string; wsUrl: string }> {
    const { mediaUrl, streamToken } = await this.#dispatchToMediaServer(spec);
    return { token: streamToken, wsUrl: webrtcSignallingUrl(mediaUrl, streamToken) };
  }

  /** A dispatch whose media connects to the engine's media server: refused 503 when the engine runs none. */
  async #dispatchToMediaServer(spec: CallSpec): Promise<{ mediaUrl: string; streamToken: string }> {
    const accepted = await this.#request(spec, DISPATCH_TIMEOUT_MS);
    if (!accepted.mediaUrl) {
      this.end(spec.callId, 'no_media_server');
      const detail = 'the engine that accepted the call runs no media server (PARLEY_MEDIA_URL)';
      return this.#fail(spec.callId, detail, detail);
    }
    await this.#dispatched(spec, accepted.engineId);
    return { mediaUrl: accepted.mediaUrl, streamToken: accepted.streamToken };
  }

  /**
   * Dispatches a call whose media reaches the engine over the bus (the SIP gateway's media bridge, protocol/sip.ts):
   * no media server is needed, the stream token is the whole answer. `timeoutMs` lets a caller that is itself
   * being waited for (an INVITE) give the engine only the time it has left.
   */
  async dispatchBridged(spec: CallSpec, timeoutMs = DISPATCH_TIMEOUT_MS): Promise<BridgedDispatch> {
    const accepted = await this.#request(spec, timeoutMs);
    await this.#dispatched(spec, accepted.engineId);
    return { engineId: accepted.engineId, streamToken: accepted.streamToken };
  }

  async #request(
    spec: CallSpec,
    timeoutMs: number,
  ): Promise<{ engineId: string; streamToken: string; mediaUrl?: string }> {
    const deadline = Date.now() + timeoutMs;
    let reply;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const left = Math.max(1, deadline - Date.now());
        const answer = await this.#bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: left });
        reply = callCodecs.dispatchReply.decode(answer.data);
      } catch (error) {
        return this.#fail(spec.callId, isBusError(error) ? error.code : String(error), NO_ENGINE, error);
      }
      // A draining engine took the request before leaving the queue group: another engine may take it
      // (docs/architecture.md §18), while the time allowed lasts.
      if (reply.ok || reply.code !== ENGINE_DRAINING || attempt >= DRAINING_RETRIES || Date.now() >= deadline) break;
    }
    // The engine says why in words the user can act on (a missing recogniser or voice: engine/src/roles/missing-worker.ts).
    if (!reply.ok) return this.#fail(spec.callId, `${reply.code}: ${reply.message}`, reply.message);
    return reply;
  }

  async #dispatched(spec: CallSpec, engineId: string): Promise<void> {
    await markDispatched(this.#sql, spec.callId, { engineId, maxDurationMs: spec.limits.maxDurationMs });
  }

  /** Finishes the call FAILED and throws the 503. @param reason what the 503 tells the caller */
  async #fail(callId: string, detail: string, reason: string, cause?: unknown): Promise<never> {
    await finishCall(this.#sql, callId, {
      status: 'FAILED',
      outcome: 'failed',
      outcomeDetail: detail,
      reason: 'engine_unavailable',
      analyse: false,
    });
    this.#log('warn', 'no engine took the call', { callId, detail });
    throw new ApiError('unavailable', `The real-time media service is unavailable: ${reason}`, { cause });
  }

  /** Tells the engine running the call to hang up (a no-op when none runs it). */
  end(callId: string, reason: string): void {
    this.#bus.publish(subjects.callControl(callId), callCodecs.control.encode({ type: 'end', reason }));
  }
}
