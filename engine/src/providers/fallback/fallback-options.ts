/**
 * What the fallback adapters share. Each one runs a primary provider and, when the primary fails before it produced
 * any output, runs the same work on a secondary. Once output has reached the caller, a failure propagates: replaying
 * the turn on the secondary would repeat words the caller already heard (or the agent already acted on).
 *
 * An adapter takes its primary's `name`: it stands in for the provider the operator configured (PARLEY_TTS=elevenlabs
 * still picks "elevenlabs" in a worker's registry), and `onFallback` is where the switch becomes visible.
 */
export interface FallbackOptions {
  /**
   * Told each time the secondary takes over, with the primary's error (logs, metrics, circuit breakers). Not told
   * of failures that propagate.
   */
  onFallback?: (error: unknown) => void;
}
