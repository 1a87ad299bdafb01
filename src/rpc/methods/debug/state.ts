/**
 * State inspection: debug_accountAt, the account as transaction `txIndex` of a block found it (the
 * block's earlier transactions applied). `code` is `0x0` for an account without code, as Besu writes
 * it. An index outside the block is `Invalid transaction params`; an account that does not exist there
 * is `Account not found`.
 */
import { Address, bytesToHex, hexToBytes, KECCAK256_NULL } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { resolveHeader } from '../../blockParam.js';
import {
  BLOCK_NOT_FOUND,
  INVALID_ADDRESS_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_TRANSACTION_INDEX_PARAMS,
  INVALID_TRANSACTION_PARAMS,
  NO_ACCOUNT_FOUND,
  RpcError,
} from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { address, blockParam, decoder } from '../../params.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';

/** A transaction index: a non-negative integer (a JSON number or its decimal text). */
const txIndex = decoder(INVALID_TRANSACTION_INDEX_PARAMS, (value) => {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 ? n : undefined;
});

interface AccountAt {
  code: string;
  nonce: string;
  balance: string;
  codehash: string;
}

export const debugAccountAt = defineMethod({
  name: 'debug_accountAt',
  group: 'DEBUG',
  params: [
    required(blockParam, INVALID_BLOCK_PARAMS),
    required(txIndex),
    required(address, INVALID_ADDRESS_PARAMS),
  ],
  async handler([p, index, account], { services }) {
    const header = resolveHeader(services.chain, p);
    const block = header ? services.chain.getBlock(header.hash()) : undefined;
    if (!block) throw new RpcError(BLOCK_NOT_FOUND);
    if (block.transactions.length === 0 || index < 0 || index >= block.transactions.length)
      throw new RpcError(INVALID_TRANSACTION_PARAMS);
    const target = new Address(hexToBytes(account as `0x${string}`));
    const found = await services.importer.processor.replay<AccountAt | undefined>(block, {
      stopBeforeTx: index,
      async inspect(vm: VM) {
        const a = await vm.stateManager.getAccount(target);
        if (!a) return undefined;
        const code = await vm.stateManager.getCode(target);
        return {
          code: code.length === 0 ? '0x0' : bytesToHex(code),
          nonce: quantity(a.nonce),
          balance: quantity(a.balance),
          codehash: bytesToHex(a.codeHash ?? KECCAK256_NULL),
        };
      },
    });
    if (!found) throw new RpcError(NO_ACCOUNT_FOUND);
    return found;
  },
});

export const debugStateMethods: RpcMethod[] = [debugAccountAt];
