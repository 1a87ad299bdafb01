/**
 * Transaction hashes read straight from stored body encodings agree with the transaction objects'
 * own hashes, for every transaction type of the rpc-compat chain (legacy to 7702, blobs included).
 */
import { join } from 'node:path';
import { createBlockFromRLP } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { readBlockFile } from '../../src/chain/rlpFile.js';
import { bodyTransactionEncodings, rlpItemAt, rlpListItems } from '../../src/chain/rlpScan.js';
import { createCommon, loadGenesisFile } from '../../src/config/genesis.js';
import { customCrypto, keccak256 } from '../../src/crypto/index.js';
import { CONFORMANCE } from '../helpers/node.js';

describe('RLP scanning of stored bodies', () => {
  it('yields the encodings whose hashes are the transaction hashes, for every type', () => {
    const dir = join(CONFORMANCE, 'rpc-compat');
    const common = createCommon(loadGenesisFile(join(dir, 'genesis.json')), { customCrypto: customCrypto() });
    const types = new Set<number>();
    let txs = 0;
    for (const { rlp } of readBlockFile(join(dir, 'chain.rlp'))) {
      const block = createBlockFromRLP(rlp, { common, setHardfork: true });
      const body = RLP.encode(block.raw().slice(1) as never);
      const scanned = bodyTransactionEncodings(body).map((e) => bytesToHex(keccak256(e)));
      expect(scanned).toEqual(block.transactions.map((tx) => bytesToHex(tx.hash())));
      for (const tx of block.transactions) types.add(tx.type);
      txs += block.transactions.length;
    }
    expect(txs).toBeGreaterThan(20);
    expect([...types].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses truncated and overrunning input', () => {
    expect(() => rlpItemAt(Uint8Array.from([0xb8]), 0)).toThrow();
    expect(() => rlpItemAt(Uint8Array.from([0x83, 1, 2]), 0)).toThrow();
    const bad = Uint8Array.from([0xc2, 0x83, 1, 2, 3]);
    expect(() => rlpListItems(bad, rlpItemAt(bad, 0))).toThrow();
  });
});
