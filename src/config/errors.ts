/** A configuration problem the user can fix; `message` is shown as is, without a stack trace. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A genesis file or preset that cannot be used; the message names the file and the problem. */
export class GenesisError extends ConfigError {
  override name = 'GenesisError';
}
