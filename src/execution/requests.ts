/**
 * EIP-7685 execution requests of a block being built: deposits (EIP-6110, from the deposit contract's
 * logs), withdrawal requests (EIP-7002) and consolidations (EIP-7251, both by system calls at the end of
 * the block). Import computes them inside the library's `runBlock`; the builder needs the very same
 * computation on its own VM, so it calls the library's function rather than a second copy of the rules.
 * The package exports only its index, so the module is loaded from beside it.
 */
import type { CLRequest, CLRequestType } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';

type Accumulate = (
  vm: VM,
  txResults: RunTxResult[],
  blockGasLimit?: bigint,
  generate?: boolean,
) => Promise<CLRequest<CLRequestType>[]>;

let loaded: Promise<Accumulate> | undefined;

function accumulator(): Promise<Accumulate> {
  loaded ??= (async () => {
    const index = import.meta.resolve('@ethereumjs/vm');
    const mod = (await import(new URL('./requests.js', index).href)) as { accumulateRequests: Accumulate };
    return mod.accumulateRequests;
  })();
  return loaded;
}

/** The block's requests, in type order, after its transactions ran on `vm` (withdrawals not yet). */
export async function accumulateBlockRequests(
  vm: VM,
  txResults: RunTxResult[],
  blockGasLimit: bigint,
): Promise<CLRequest<CLRequestType>[]> {
  const accumulate = await accumulator();
  return accumulate(vm, txResults, blockGasLimit, true);
}
