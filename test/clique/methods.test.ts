/** The CLIQUE group's handlers over a real Clique chain: results, defaults, ranges and errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownErrorObject } from '../../src/rpc/errors.js';
import { allMethods } from '../../src/rpc/methods/index.js';
import type { Services } from '../../src/rpc/services.js';
import { hashMapOrder, javaBytesHash, javaStringHash } from '../../src/util/javaOrder.js';
import { type CliqueTestChain, cliqueGenesis, openCliqueChain, sealEmptyBlock, testKey } from './helpers.js';

const A = testKey('a');
const B = testKey('b');
const ZERO = '0x0000000000000000000000000000000000000000';
const byName = new Map(allMethods.map((m) => [m.name, m]));

let c: CliqueTestChain;
let services: Services;

async function call(method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: object }> {
  const m = byName.get(method);
  if (!m) throw new Error(`no method ${method}`);
  try {
    return { result: JSON.parse(JSON.stringify(await m.handler(params, { services, transport: 'http' }))) };
  } catch (err) {
    const error = knownErrorObject(err);
    if (error === undefined) throw err;
    return { error };
  }
}

beforeAll(async () => {
  c = await openCliqueChain(cliqueGenesis([A.address]));
  // Block 1 (A) votes B in; then B, A, B, A seal blocks 2–5.
  let parent = c.genesis.header;
  const b1 = sealEmptyBlock(parent, A, { vote: { candidate: B.address, add: true } });
  await c.importer.importBlock(b1);
  parent = b1.header;
  for (let n = 2; n <= 5; n++) {
    const who = n % 2 === 0 ? B : A;
    const signers = c.clique.signersAfter(parent);
    const difficulty = signers[n % signers.length] === who.address ? 2n : 1n;
    const b = sealEmptyBlock(parent, who, { difficulty });
    await c.importer.importBlock(b);
    parent = b.header;
  }
  services = c.services;
});
afterAll(async () => {
  await c.close();
});

const both = [A.address, B.address].sort();

describe('clique_getSigners / clique_getSignersAtHash', () => {
  it('answers the signers after a block, latest by default', async () => {
    expect(await call('clique_getSigners')).toEqual({ result: both });
    expect(await call('clique_getSigners', ['latest'])).toEqual({ result: both });
    expect(await call('clique_getSigners', ['earliest'])).toEqual({ result: [A.address] });
    expect(await call('clique_getSigners', ['0x0'])).toEqual({ result: [A.address] });
    expect(await call('clique_getSigners', ['0x1'])).toEqual({ result: both });
    const genesisHash = `0x${Buffer.from(c.genesis.hash()).toString('hex')}`;
    expect(await call('clique_getSignersAtHash', [genesisHash])).toEqual({ result: [A.address] });
    const headHash = `0x${Buffer.from(c.chain.head().hash).toString('hex')}`;
    expect(await call('clique_getSignersAtHash', [headHash])).toEqual({ result: both });
  });

  it('answers Internal error for an unknown block and Invalid params for a malformed one', async () => {
    expect(await call('clique_getSigners', ['0x64'])).toEqual({
      error: { code: -32603, message: 'Internal error' },
    });
    expect(await call('clique_getSignersAtHash', [`0x${'ab'.repeat(32)}`])).toEqual({
      error: { code: -32603, message: 'Internal error' },
    });
    expect(await call('clique_getSigners', ['nope'])).toMatchObject({ error: { code: -32602 } });
    expect(await call('clique_getSignersAtHash', ['0x1234'])).toEqual({
      error: { code: -32602, message: 'Invalid block hash params' },
    });
    expect(await call('clique_getSignersAtHash', [])).toMatchObject({ error: { code: -32602 } });
  });
});

describe('clique_propose / clique_discard / clique_proposals', () => {
  it('keeps proposals until discarded and refuses the zero address', async () => {
    expect(await call('clique_proposals')).toEqual({ result: {} });
    expect(await call('clique_propose', [ZERO, true])).toEqual({
      error: { code: -32600, message: 'Invalid Request' },
    });
    expect(await call('clique_propose', ['0xzz', true])).toEqual({
      error: { code: -32602, message: 'Invalid address params' },
    });
    expect(await call('clique_propose', [B.address])).toEqual({
      error: { code: -32602, message: 'Invalid proposal params' },
    });
    expect(await call('clique_propose', [B.address, false])).toEqual({ result: true });
    expect(await call('clique_propose', ['0x00000000000000000000000000000000000000aa', true])).toEqual({
      result: true,
    });
    expect(await call('clique_proposals')).toEqual({
      result: { [B.address]: false, '0x00000000000000000000000000000000000000aa': true },
    });
    expect(await call('clique_discard', [B.address])).toEqual({ result: true });
    expect(await call('clique_discard', [B.address])).toEqual({ result: true });
    expect(await call('clique_proposals')).toEqual({
      result: { '0x00000000000000000000000000000000000000aa': true },
    });
    expect(await call('clique_discard', ['0x00000000000000000000000000000000000000aa'])).toEqual({
      result: true,
    });
  });
});

describe('clique_getSignerMetrics', () => {
  const metric = (address: string, count: number, last: number) => ({
    address,
    proposedBlockCount: `0x${count.toString(16)}`,
    lastProposedBlockNumber: `0x${last.toString(16)}`,
  });
  const sortByAddress = (r: unknown) =>
    [...(r as Array<{ address: string }>)].sort((x, y) => x.address.localeCompare(y.address));

  it('counts [from, to) with the head excluded by default, and the genesis proposer as zero', async () => {
    // Blocks 0..4: genesis (zero), A at 1 and 3, B at 2 and 4.
    const r = await call('clique_getSignerMetrics');
    expect(sortByAddress(r.result)).toEqual(
      sortByAddress([metric(ZERO, 1, 0), metric(A.address, 2, 3), metric(B.address, 2, 4)]),
    );
    expect(await call('clique_getSignerMetrics', ['0x2', 'latest'])).toEqual(
      await call('clique_getSignerMetrics', ['0x2']),
    );
    const r2 = await call('clique_getSignerMetrics', ['0x2', '0x3']);
    // Only block 2 (B); A is a signer after block 2, so it appears with zero counts.
    expect(sortByAddress(r2.result)).toEqual(
      sortByAddress([metric(B.address, 1, 2), metric(A.address, 0, 0)]),
    );
    // `to` beyond the head is the head.
    expect(await call('clique_getSignerMetrics', ['0x1', '0x64'])).toEqual(
      await call('clique_getSignerMetrics', ['0x1']),
    );
    // Before the vote only A signs.
    expect(await call('clique_getSignerMetrics', ['earliest', '0x1'])).toEqual({
      result: hashMapOrder([ZERO, A.address], (a) => javaBytesHash(Buffer.from(a.slice(2), 'hex'))).map((a) =>
        metric(a, a === ZERO ? 1 : 0, 0),
      ),
    });
  });

  it('refuses an empty range', async () => {
    const bad = { error: { code: -32602, message: 'Invalid block number params' } };
    expect(await call('clique_getSignerMetrics', ['0x3', '0x3'])).toEqual(bad);
    expect(await call('clique_getSignerMetrics', ['0x5'])).toEqual(bad);
    expect(await call('clique_getSignerMetrics', ['latest', 'earliest'])).toEqual(bad);
  });
});

describe('Java HashMap order', () => {
  it('hashes as String.hashCode and Tuweni Bytes.hashCode do', () => {
    expect(javaStringHash('hello')).toBe(99162322);
    expect(javaStringHash('')).toBe(0);
    expect(javaBytesHash(new Uint8Array([0xff]))).toBe(31 - 1);
    expect(javaBytesHash(new Uint8Array([1, 2]))).toBe((31 + 1) * 31 + 2);
  });

  it('orders by bucket, then by insertion', () => {
    // "a" hashes to 97 (bucket 1 of 16), "b" to 98 (bucket 2), "q" to 113 (bucket 1).
    expect(hashMapOrder(['b', 'q', 'a'], javaStringHash)).toEqual(['q', 'a', 'b']);
  });
});
