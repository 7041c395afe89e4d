/**
 * The engine's heartbeat (docs/architecture.md §18): every ENGINE_HEARTBEAT_INTERVAL_MS it tells the control planes
 * who it is, which calls it holds and whether it is draining, so a killed engine's calls are finished within seconds.
 */
import type { Bus } from '../bus/index.ts';
import { ENGINE_HEARTBEAT_INTERVAL_MS, engineCodecs, subjects, type EngineHeartbeat } from '../protocol/index.ts';

export class EngineHeartbeatSender {
  readonly #bus: Bus;
  readonly #state: () => EngineHeartbeat;
  #timer: NodeJS.Timeout | undefined;

  /** @param state what the engine holds at the moment of each beat */
  constructor(bus: Bus, state: () => EngineHeartbeat) {
    this.#bus = bus;
    this.#state = state;
  }

  /** Beats now and then every interval. */
  start(): this {
    this.beat();
    this.#timer = setInterval(() => this.beat(), ENGINE_HEARTBEAT_INTERVAL_MS);
    this.#timer.unref();
    return this;
  }

  /** One beat now (the draining flag is told at once rather than at the next interval). */
  beat(): void {
    const state = this.#state();
    try {
      this.#bus.publish(subjects.engineHeartbeat(state.engineId), engineCodecs.heartbeat.encode(state));
    } catch {
      // The bus is closed or reconnecting: the next beat tries again; the control planes allow for a few lost ones.
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
