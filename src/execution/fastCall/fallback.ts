/**
 * Thrown by the call interpreter when a call needs something it leaves to the EVM library (contract
 * creation and SELFDESTRUCT in simulated calls, an asynchronous precompile, delegated code, storage
 * written by overrides). The simulator or the block processor then runs the call on the library's
 * EVM from the start: the interpreter writes nothing outside its own `CallWorld`, so an abandoned run
 * leaves no trace.
 */
export class Fallback extends Error {
  override name = 'Fallback';
}
