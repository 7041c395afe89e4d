/**
 * Handing a phone call to an engine (docs/architecture.md §3 step 2): a request on `v1.engine.dispatch` that one engine takes;
 * its answer names its media server and a one-use stream token, from which the carrier's stream URL is made. The
 * record moves to INITIATED; when no engine takes the call it is finished FAILED and 503 thrown.
 */
import { mediaStreamUrl, type MediaCarrier } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { isBusError } from '@parley/engine/bus';
import { callCodecs, subjects, type CallSpec } from '@parley/engine/protocol';
import type { Sql } from '../../db/database.ts';
import { ApiError } from '../../errors.ts';
import { finishCall, markDispatched } from '../repository/call-repository.ts';

/** How long an engine has to accept a dispatch, ms. */
export const DISPATCH_TIMEOUT_MS = 10_000;

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
    const fail = async (detail: string, cause?: unknown): Promise<never> => {
      await finishCall(this.#sql, spec.callId, {
        status: 'FAILED',
        outcome: 'failed',
        outcomeDetail: detail,
        reason: 'engine_unavailable',
        analyse: false,
      });
      this.#log('warn', 'no engine took the call', { callId: spec.callId, detail });
      throw new ApiError('unavailable', 'The real-time media service is unavailable: no engine accepted the call', {
        cause,
      });
    };
    let reply;
    try {
      const answer = await this.#bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), {
        timeoutMs: DISPATCH_TIMEOUT_MS,
      });
      reply = callCodecs.dispatchReply.decode(answer.data);
    } catch (error) {
      return fail(isBusError(error) ? error.code : String(error), error);
    }
    if (!reply.ok) return fail(`${reply.code}: ${reply.message}`);
    if (!reply.mediaUrl) {
      this.end(spec.callId, 'no_media_server');
      return fail('the engine that accepted the call runs no media server (PARLEY_MEDIA_URL)');
    }
    await markDispatched(this.#sql, spec.callId, {
      engineId: reply.engineId,
      maxDurationMs: spec.limits.maxDurationMs,
    });
    return mediaStreamUrl(reply.mediaUrl, media, reply.streamToken);
  }

  /** Tells the engine running the call to hang up (a no-op when none runs it). */
  end(callId: string, reason: string): void {
    this.#bus.publish(subjects.callControl(callId), callCodecs.control.encode({ type: 'end', reason }));
  }
}
