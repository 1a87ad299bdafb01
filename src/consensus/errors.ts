/** Typed errors of the consensus layer. */

/** The genesis asks for a consensus Alder cannot run (yet); `key` names the genesis entry. */
export class UnsupportedConsensusError extends Error {
  override name = 'UnsupportedConsensusError';
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`Genesis ${key}: ${reason}`);
  }
}
