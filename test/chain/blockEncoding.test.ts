/**
 * The body a block is stored with, its transaction hashes and the hashes their signatures sign, built
 * from the transaction encodings computed once per block, are byte for byte the library's
 * (`RLP.encode(block.raw().slice(1))`, `keccak(tx.serialize())`, `getMessageToVerifySignature()`) for every block of the rpc-compat chain (legacy to 7702, blobs,
 * withdrawals) and of Besu's hive chain (uncles and pre-London blocks).
 */
import { createBlockFromRLP } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { encodeBody, signingHash, transactionEncodings } from '../../src/chain/blockEncoding.js';
import { readBlockFile } from '../../src/chain/rlpFile.js';
import { createCommon, loadGenesisFile } from '../../src/config/genesis.js';
import { customCrypto, keccak256 } from '../../src/crypto/index.js';
import { HIVE_CHAIN, RPC_COMPAT_CHAIN } from '../helpers/conformance.js';

describe('block encodings from the transactions serialized once', () => {
  for (const [name, chain] of [
    ['rpc-compat', RPC_COMPAT_CHAIN],
    ['hive', HIVE_CHAIN],
  ] as const) {
    it(`stores every ${name} block's body and hashes exactly as the library encodes them`, () => {
      const common = createCommon(loadGenesisFile(chain.genesis), { customCrypto: customCrypto() });
      let blocks = 0;
      let uncles = 0;
      const types = new Set<string>();
      for (const { rlp } of readBlockFile(chain.blocks)) {
        const block = createBlockFromRLP(rlp, { common, setHardfork: true });
        const expectedHashes = block.transactions.map((tx) => bytesToHex(keccak256(tx.serialize())));
        expect(bytesToHex(encodeBody(block))).toBe(bytesToHex(RLP.encode(block.raw().slice(1) as never)));
        expect(transactionEncodings(block).map((e) => bytesToHex(e))).toEqual(
          block.transactions.map((tx) => bytesToHex(tx.serialize())),
        );
        expect(block.transactions.map((tx) => bytesToHex(tx.hash()))).toEqual(expectedHashes);
        const encodings = transactionEncodings(block);
        block.transactions.forEach((tx, i) => {
          expect(bytesToHex(signingHash(tx, encodings[i]))).toBe(
            bytesToHex(tx.getMessageToVerifySignature()),
          );
          types.add(`${tx.type}${tx.type === 0 && !tx.supports(155) ? ' pre-155' : ''}`);
        });
        blocks++;
        uncles += block.uncleHeaders.length;
      }
      expect(blocks).toBeGreaterThan(30);
      if (name === 'hive') expect(uncles).toBeGreaterThan(0);
      // Every transaction type the chains hold: legacy (with and without EIP-155), 2930, 1559, 4844, 7702.
      if (name === 'rpc-compat') expect([...types].sort()).toEqual(['0', '0 pre-155', '1', '2', '3', '4']);
    });
  }
});
