/**
 * Signing dev-network transactions for the bench suites, outside their measured time: EIP-1559
 * transactions for chain id 1337 under London rules, signed with native secp256k1.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { ecsign, keccak256 } from './genchain.mjs';

export const DEV_CHAIN_ID = 1337n;
const GWEI = 10n ** 9n;

const common = new Common({
  chain: { ...Mainnet, chainId: Number(DEV_CHAIN_ID), name: 'bench-dev' },
  hardfork: Hardfork.London,
  customCrypto: { keccak256, ecsign },
});

/**
 * A signed EIP-1559 transaction (the library's object) from `key` (32 bytes) with `fields`; the fees
 * default to 100 gwei at most with a 1 gwei tip.
 */
export function signDevTx(key, fields) {
  return createFeeMarket1559Tx(
    { chainId: DEV_CHAIN_ID, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI, ...fields },
    { common },
  ).sign(key);
}
