/**
 * A transaction's intrinsic gas and its EIP-7623 calldata floor, the two minimums its gas limit must
 * meet: the pool checks them when the transaction arrives and block execution again when it runs.
 * The library computes each by adding a bigint per calldata byte; here the calldata is scanned once,
 * its zero bytes counted in a small integer, and both figures follow from that count and the fork's
 * parameters (EIP-2028 byte costs, EIP-3860 initcode words, EIP-2930 access list entries).
 *
 * It serves legacy, access-list and fee-market transactions on forks without the Amsterdam
 * proposals that change these rules (EIP-2780's recipient costs, EIP-7976 and EIP-7981's floor
 * tokens, EIP-8037 and EIP-8038's gas changes); anything else is answered by the library's own functions.
 */
import type { Common } from '@ethereumjs/common';
import { getCalldataFloorGas, type TypedTransaction } from '@ethereumjs/tx';

export interface MinimumGas {
  /** The library's `getIntrinsicGas()`. */
  intrinsic: bigint;
  /** The library's `getCalldataFloorGas()`: 0 before EIP-7623. */
  floor: bigint;
}

/** EIPs whose rules change the intrinsic gas or the floor in ways the count below does not follow. */
const OTHER_RULES = [2780, 7976, 7981, 8037, 8038];

interface AccessListed {
  accessList: [Uint8Array, Uint8Array[]][];
}

/** A fork's costs for the count below, as doubles (undefined: the rule is not active). */
interface Costs {
  /** False when one of OTHER_RULES is active: the library answers. */
  own: boolean;
  txGas: number;
  zeroByte: number;
  nonZeroByte: number;
  initCodeWord: number | undefined;
  creation: number | undefined;
  accessListAddress: number;
  accessListKey: number;
  floorPerToken: number | undefined;
}

/**
 * Costs by the Common's parameter table: `Common` builds a new table whenever its hardfork or EIPs
 * change, so a table seen before stands for the same rules (its `param` parses each value anew).
 */
const costsByParams = new WeakMap<object, Costs>();

function costsOf(common: Common): Costs {
  const params = (common as unknown as { _paramsCache: object })._paramsCache;
  let costs = costsByParams.get(params);
  if (costs === undefined) {
    const param = (name: string): number => Number(common.param(name));
    const eip = (n: number): boolean => common.isActivatedEIP(n);
    const berlin = eip(2930);
    costs = {
      own: !OTHER_RULES.some(eip),
      txGas: param('txGas'),
      zeroByte: param('txDataZeroGas'),
      nonZeroByte: param('txDataNonZeroGas'),
      initCodeWord: eip(3860) ? param('initCodeWordGas') : undefined,
      creation: common.gteHardfork('homestead') ? param('txCreationGas') : undefined,
      accessListAddress: berlin ? param('accessListAddressGas') : 0,
      accessListKey: berlin ? param('accessListStorageKeyGas') : 0,
      floorPerToken: eip(7623) ? param('totalCostFloorPerToken') : undefined,
    };
    costsByParams.set(params, costs);
  }
  return costs;
}

/** The intrinsic gas and calldata floor of `tx` (see the module notes). */
export function minimumGas(tx: TypedTransaction): MinimumGas {
  const type = tx.type;
  const costs = costsOf(tx.common);
  if (type > 2 || !costs.own) return { intrinsic: tx.getIntrinsicGas(), floor: getCalldataFloorGas(tx) };
  const data = tx.data;
  let zeros = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++;
  const nonZeros = data.length - zeros;
  const to = tx.to;
  // Summed as doubles: every term is far below 2^53 (calldata and access lists are bounded by the
  // block's gas limit), so this is exact, and only the two results become bigints.
  let intrinsic = costs.txGas + zeros * costs.zeroByte + nonZeros * costs.nonZeroByte;
  if ((to === undefined || to === null) && costs.initCodeWord !== undefined)
    intrinsic += costs.initCodeWord * Math.ceil(data.length / 32);
  if ((to === undefined || to.bytes.length === 0) && costs.creation !== undefined)
    intrinsic += costs.creation;
  if (type !== 0) {
    const list = (tx as unknown as AccessListed).accessList;
    let keys = 0;
    for (const entry of list) keys += entry[1].length;
    intrinsic += list.length * costs.accessListAddress + keys * costs.accessListKey;
  }
  const floor =
    costs.floorPerToken !== undefined
      ? BigInt(costs.txGas + costs.floorPerToken * (zeros + 4 * nonZeros))
      : 0n;
  return { intrinsic: BigInt(intrinsic), floor };
}
