/** A mistake of the caller's: printed without a stack trace, exit code 2. */
export class CliError extends Error {
  override name = 'CliError';
}
