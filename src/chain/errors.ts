/** Typed errors of the chain layer; rpc/errors.ts maps them to Besu's codes. */
export class InvalidBlockError extends Error {
  constructor(
    readonly number: bigint,
    readonly hash: string,
    readonly reason: string,
  ) {
    super(`Invalid block ${number} (${hash}): ${reason}`);
    this.name = 'InvalidBlockError';
  }
}

export class UnknownParentError extends Error {
  constructor(
    readonly number: bigint,
    readonly hash: string,
    readonly parentHash: string,
  ) {
    super(`Block ${number} (${hash}) has unknown parent ${parentHash}`);
    this.name = 'UnknownParentError';
  }
}

export class GenesisMismatchError extends Error {
  constructor(
    readonly stored: string,
    readonly configured: string,
  ) {
    super(
      `The data directory was created for another genesis (genesis hash ${stored}); the configured genesis has hash ${configured}. Use another --data-path.`,
    );
    this.name = 'GenesisMismatchError';
  }
}
