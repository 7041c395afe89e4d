/** A setting of the environment is wrong: the start stops with this message, naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
