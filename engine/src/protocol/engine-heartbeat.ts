/**
 * Engines' liveness (docs/architecture.md §18). Every engine publishes a heartbeat on
 * `v1.engine.<engineId>.heartbeat` naming the calls it holds and whether it is draining; every control plane listens
 * on the wildcard, and the calls of an engine that falls silent are finished by the control plane as `engine_lost`
 * (the engine was killed, or its host died) instead of waiting for the sweeper's ten minutes.
 */
import { Type, type Static } from '@sinclair/typebox';
import { messageCodec } from './message-codec.ts';

/** How often an engine announces itself, ms: a beat lost to a busy event loop is absorbed by ENGINE_LOST_AFTER_MS. */
export const ENGINE_HEARTBEAT_INTERVAL_MS = 1_000;
/**
 * An engine unheard this long is taken for lost, ms: four missed beats, so a garbage collection or a loaded machine
 * never costs a live engine its calls, while a killed one's calls are finished well inside ten seconds.
 */
export const ENGINE_LOST_AFTER_MS = 4_000;

/** The dispatch refusal of an engine that is draining: the control plane asks another engine. */
export const ENGINE_DRAINING = 'engine_draining';

export const EngineHeartbeat = Type.Object({
  engineId: Type.String({ minLength: 1 }),
  /** Every call the engine holds: those running and those accepted whose media has not arrived yet. */
  calls: Type.Array(Type.String()),
  /** The engine takes no new calls and is letting these finish (SIGTERM). */
  draining: Type.Boolean(),
});
export type EngineHeartbeat = Static<typeof EngineHeartbeat>;

export const engineCodecs = {
  heartbeat: messageCodec(EngineHeartbeat, 'engine heartbeat'),
} as const;
