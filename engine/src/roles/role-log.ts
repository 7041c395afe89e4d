/** How bad a reported event is: info (the default) for what happens, warn for a degradation, error for a failure. */
export type LogLevel = 'info' | 'warn' | 'error';

/** How roles report what they do: a message, structured detail and its level, routed by the caller to its logger. */
export type RoleLog = (event: string, detail?: object, level?: LogLevel) => void;
