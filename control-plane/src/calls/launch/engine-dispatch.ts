/**
 * Handing a phone call to an engine (docs/architecture.md §3 step 2): a request on `v1.engine.dispatch` that one engine takes;
 * its answer names its media server and a one-use stream token, from which the carrier's stream URL is made. The
 * record moves to INITIATED; when no engine takes the call it is finished FAILED and 503 thrown, saying why: the
 * engine's refusal (which worker is missing, and what to install or set), or that no engine answered.
 */
import { mediaStreamUrl, webrtcSignallingUrl, type MediaCarrier } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { isBusError } from '@parley/engine/bus';
import { callCodecs, subjects, type CallSpec } from '@parley/engine/protocol';
import type { Sql } from '../../db/database.ts';
import { ApiError } from '../../errors.ts';
import { finishCall, markDispatched } from '../repository/call-repository.ts';

/** How long an engine has to accept a dispatch, ms: above the engine's own wait for workers (OPEN_DEADLINE_MS, 8 s). */
export const DISPATCH_TIMEOUT_MS = 10_000;

/** The 503's reason when no engine answered the dispatch at all. */
export const NO_ENGINE =
  'no engine accepted the call (is a process with the engine role running? parley start runs one)';

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
    const { mediaUrl, streamToken } = await this.#dispatch(spec);
    return mediaStreamUrl(mediaUrl, media, streamToken);
  }

  /**
   * Dispatches a browser call (docs/architecture.md §16): answers the engine's one-use stream token — the call's
   * participant token — and the signalling URL the browser opens with it.
   */
  async dispatchWeb(spec: CallSpec): Promise<{ token: string; wsUrl: string }> {
    const { mediaUrl, streamToken } = await this.#dispatch(spec);
    return { token: streamToken, wsUrl: webrtcSignallingUrl(mediaUrl, streamToken) };
  }

  async #dispatch(spec: CallSpec): Promise<{ mediaUrl: string; streamToken: string }> {
    /** @param reason what the 503 tells the caller: the engine's refusal, or that no engine answered */
    const fail = async (detail: string, reason: string, cause?: unknown): Promise<never> => {
      await finishCall(this.#sql, spec.callId, {
        status: 'FAILED',
        outcome: 'failed',
        outcomeDetail: detail,
        reason: 'engine_unavailable',
        analyse: false,
      });
      this.#log('warn', 'no engine took the call', { callId: spec.callId, detail });
      throw new ApiError('unavailable', `The real-time media service is unavailable: ${reason}`, { cause });
    };
    let reply;
    try {
      const answer = await this.#bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), {
        timeoutMs: DISPATCH_TIMEOUT_MS,
      });
      reply = callCodecs.dispatchReply.decode(answer.data);
    } catch (error) {
      return fail(isBusError(error) ? error.code : String(error), NO_ENGINE, error);
    }
    // The engine says why in words the user can act on (a missing recogniser or voice: engine/src/roles/missing-worker.ts).
    if (!reply.ok) return fail(`${reply.code}: ${reply.message}`, reply.message);
    if (!reply.mediaUrl) {
      this.end(spec.callId, 'no_media_server');
      const detail = 'the engine that accepted the call runs no media server (PARLEY_MEDIA_URL)';
      return fail(detail, detail);
    }
    await markDispatched(this.#sql, spec.callId, {
      engineId: reply.engineId,
      maxDurationMs: spec.limits.maxDurationMs,
    });
    return { mediaUrl: reply.mediaUrl, streamToken: reply.streamToken };
  }

  /** Tells the engine running the call to hang up (a no-op when none runs it). */
  end(callId: string, reason: string): void {
    this.#bus.publish(subjects.callControl(callId), callCodecs.control.encode({ type: 'end', reason }));
  }
}
