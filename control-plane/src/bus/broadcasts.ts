/**
 * Broadcast subjects carry small JSON notices that every control-plane process acts on (cache drops). This runs
 * one such listener: each notice is handed to `handle`; a malformed one is reported, never fatal.
 */
import type { Bus, Subscription } from '@parley/engine/bus';

export function listenForBroadcasts<T>(
  bus: Bus,
  subject: string,
  handle: (notice: T) => void,
  onError: (error: unknown) => void,
): Subscription {
  const subscription = bus.subscribe(subject);
  void (async () => {
    for await (const message of subscription) {
      try {
        handle(message.json<T>());
      } catch (error) {
        onError(error);
      }
    }
  })();
  return subscription;
}
