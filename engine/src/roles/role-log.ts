/** How bad a reported event is: info (the default) for what happens, warn for a degradation, error for a failure. */
export type LogLevel = 'info' | 'warn' | 'error';

/** How roles report what they do: a message, structured detail and its level, routed by the caller to its logger. */
export type RoleLog = (event: string, detail?: object, level?: LogLevel) => void;

/**
 * A RoleLog whose every report carries `bindings` (a call's id, a stream's id) under the report's own detail: what
 * pino's child loggers do, for the callback roles report through (docs/architecture.md §19).
 */
export function childLog(log: RoleLog, bindings: Record<string, unknown>): RoleLog {
  return (event, detail, level) => log(event, { ...bindings, ...detail }, level);
}
