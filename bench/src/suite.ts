/**
 * What a bench suite is: a name, a one-line summary, its own options, and a run that measures, prints its report
 * and answers an exit code. `run.ts` registers suites by name.
 */

/** Exit codes of `npm run bench`: a measurement that missed a target still exits `ok`; only a broken run fails. */
export const EXIT_OK = 0;
/** The run itself went wrong: setup failed, errors or non-2xx answers under load. */
export const EXIT_FAILED = 1;
/** Bad command line or missing environment. */
export const EXIT_USAGE = 2;
/** Stopped by Ctrl-C (128 + SIGINT), after cleaning up. */
export const EXIT_INTERRUPTED = 130;

export type ExitCode = typeof EXIT_OK | typeof EXIT_FAILED | typeof EXIT_USAGE | typeof EXIT_INTERRUPTED;

/** Options every suite takes. */
export interface CommonOptions {
  /** Seconds of measured load per target (warm-up not included). */
  durationSeconds: number;
  /** Concurrent connections of the load generator. */
  connections: number;
  /** Print the result as one JSON object after the human-readable report. */
  json: boolean;
}

/** A suite's own option: a value (`string`) or a flag (`boolean`). */
export interface SuiteOption {
  type: 'string' | 'boolean';
  /** Shown in the usage text, e.g. `<dir>`. */
  valueName?: string;
  description: string;
}

export interface SuiteContext {
  options: CommonOptions;
  /** Values of the suite's own options, keyed by option name. */
  extra: Readonly<Record<string, string | boolean | undefined>>;
  /** Aborted on Ctrl-C: the suite stops its load, cleans up and returns. */
  signal: AbortSignal;
  /** The report and the JSON result. */
  out(text: string): void;
  /** Progress and diagnostics, kept off stdout so the report stays clean. */
  log(text: string): void;
}

export interface Suite {
  name: string;
  summary: string;
  options?: Readonly<Record<string, SuiteOption>>;
  run(context: SuiteContext): Promise<ExitCode>;
}
