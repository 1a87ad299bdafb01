/**
 * EIP-7702 authorization lists in simulated calls (eth_call, eth_estimateGas, eth_simulateV1).
 *
 * A simulation may name an entry's `authority` instead of signing it. The library's transaction
 * runner always recovers the authority from the signature, so for simulations the list is applied
 * here instead, with the rules a type-4 transaction follows: chain id 0 or the chain's, nonce below
 * 2^64-1, a low-s signature with y-parity 0 or 1 (signed entries only), an authority without code or
 * already delegated, whose nonce equals the entry's; then the authority's nonce is bumped, its code
 * becomes the delegation designator (or is cleared for the zero address), it is warm, and an
 * authority that already existed refunds the empty-account surcharge. It runs where the runner
 * would run it: after the sender's nonce bump, inside the transaction's journal checkpoint, just
 * before the execution frame. The transaction keeps its full list for its encoding and its
 * intrinsic gas.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  Account,
  Address,
  bigIntToUnpaddedBytes,
  concatBytes,
  eoaCode7702RecoverAuthority,
  equalsBytes,
  MAX_UINT64,
  SECP256K1_ORDER_DIV_2,
} from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { AuthorizationItem } from './callTypes.js';

const DELEGATION_PREFIX = Uint8Array.of(0xef, 0x01, 0x00);
const ZERO_ADDRESS = new Uint8Array(20);

/** The signature placeholder a simulation-only entry (one that names its authority) is encoded with. */
export const SIMULATED_AUTHORIZATION_SIGNATURE = { yParity: 0n, r: 1n, s: 1n } as const;

function authorityOf(item: AuthorizationItem): Address | undefined {
  if (item.authority) return new Address(item.authority);
  if (item.s > SECP256K1_ORDER_DIV_2 || item.yParity > 1n) return undefined;
  try {
    return eoaCode7702RecoverAuthority([
      bigIntToUnpaddedBytes(item.chainId),
      item.address,
      bigIntToUnpaddedBytes(item.nonce),
      bigIntToUnpaddedBytes(item.yParity),
      bigIntToUnpaddedBytes(item.r),
      bigIntToUnpaddedBytes(item.s),
    ]);
  } catch {
    return undefined;
  }
}

/** Applies the list to the VM's state; returns the refund it earned. */
async function applyAuthorizations(
  vm: VM,
  tx: TypedTransaction,
  items: readonly AuthorizationItem[],
): Promise<bigint> {
  const common = vm.common;
  // The gas constants are transaction parameters: the transaction's Common carries them.
  const refundPerExisting = tx.common.param('perEmptyAccountCost') - tx.common.param('perAuthBaseGas');
  let refund = 0n;
  for (const item of items) {
    if (item.chainId !== 0n && item.chainId !== common.chainId()) continue;
    if (item.nonce >= MAX_UINT64) continue;
    const authority = authorityOf(item);
    if (!authority) continue;
    const existing = await vm.stateManager.getAccount(authority);
    const account = existing ?? new Account();
    vm.evm.journal.addAlwaysWarmAddress(authority.toString());
    if (account.isContract()) {
      const code = await vm.stateManager.getCode(authority);
      if (!equalsBytes(code.subarray(0, 3), DELEGATION_PREFIX)) continue;
    }
    if (account.nonce !== item.nonce) continue;
    if (existing) refund += refundPerExisting;
    account.nonce++;
    await vm.evm.journal.putAccount(authority, account);
    const clears = equalsBytes(item.address, ZERO_ADDRESS);
    await vm.stateManager.putCode(
      authority,
      clears ? new Uint8Array() : concatBytes(DELEGATION_PREFIX, item.address),
    );
  }
  return refund;
}

interface ExecResultLike {
  execResult: { gasRefund?: bigint };
}

/**
 * Arms `tx` (a type-4 transaction built from `items`) so that the next run applies `items` here
 * rather than in the library. Returns the function that disarms it; call it after the run, before
 * the transaction is encoded.
 */
export function armAuthorizations(
  vm: VM,
  tx: TypedTransaction,
  items: readonly AuthorizationItem[],
): () => void {
  if (items.length === 0 || !('authorizationList' in tx)) return () => {};
  const patched = tx as unknown as {
    authorizationList: unknown[];
    getIntrinsicGas: () => bigint;
  };
  const intrinsic = tx.getIntrinsicGas();
  const list = patched.authorizationList;
  patched.getIntrinsicGas = () => intrinsic;
  patched.authorizationList = [];
  const evm = vm.evm as unknown as { runCall: (opts: unknown) => Promise<ExecResultLike> };
  const runCall = evm.runCall;
  const ownRunCall = Object.hasOwn(evm, 'runCall');
  const disarm = () => {
    if (ownRunCall) evm.runCall = runCall;
    else delete (evm as Partial<typeof evm>).runCall;
  };
  let armed = true;
  evm.runCall = async (opts: unknown) => {
    // Only the transaction's own frame: system calls after it use the library's runCall again.
    disarm();
    armed = false;
    const refund = await applyAuthorizations(vm, tx, items);
    const result = await runCall.call(vm.evm, opts);
    result.execResult.gasRefund = (result.execResult.gasRefund ?? 0n) + refund;
    return result;
  };
  return () => {
    if (armed) disarm();
    patched.authorizationList = list;
    delete (patched as Partial<typeof patched>).getIntrinsicGas;
  };
}
