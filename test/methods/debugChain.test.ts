/**
 * Chain operations and state inspection on the Besu hive chain (blocks 1–34): debug_accountAt (Besu's
 * spec case), debug_getBadBlocks and debug_standardTraceBadBlockToFile with a block refused at import,
 * debug_standardTraceBlockToFile (EIP-3155 lines, one file per transaction under the data directory),
 * debug_replayBlock and debug_setHead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlock } from '@ethereumjs/block';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, openTestChain, type TestChain } from './chain.js';

describe('debug chain operations and state inspection', () => {
  let chain: TestChain;
  beforeAll(async () => {
    const dir = join(CONFORMANCE, 'besu/chain-data/hive');
    chain = await openTestChain({
      genesis: join(dir, 'testGenesis.json'),
      blocks: join(dir, 'testBlockchain.blocks'),
      networkId: 123n,
    });
  });
  afterAll(async () => chain?.close());

  it("debug_accountAt: Besu's spec case and its errors", async () => {
    const spec = JSON.parse(
      readFileSync(join(CONFORMANCE, 'besu/debug/account-at/debug_accountAt.json'), 'utf8'),
    );
    const got = await chain.call('debug_accountAt', spec.request.params);
    expect(got.error).toBeUndefined();
    expect(got.result).toEqual(spec.response.result);
    const [hash, , addr] = spec.request.params;
    expect((await chain.call('debug_accountAt', [hash, 99, addr])).error).toEqual({
      code: -32602,
      message: 'Invalid transaction params (missing or incorrect)',
    });
    expect((await chain.call('debug_accountAt', [hash, 0, `0x${'12'.repeat(20)}`])).error).toEqual({
      code: -32000,
      message: 'Account not found',
    });
    expect((await chain.call('debug_accountAt', [`0x${'00'.repeat(32)}`, 0, addr])).error).toEqual({
      code: -32000,
      message: 'Block not found',
    });
  });

  it('debug_standardTraceBlockToFile writes one EIP-3155 file per transaction', async () => {
    const block = chain.services.chain.getBlockByNumber(2n);
    if (!block) throw new Error('no block 2');
    const hash = `0x${Buffer.from(block.hash()).toString('hex')}`;
    const got = await chain.call('debug_standardTraceBlockToFile', [hash]);
    const paths = got.result as string[];
    expect(paths.length).toBe(block.transactions.length);
    for (const [i, p] of paths.entries()) {
      expect(
        p.startsWith(join(chain.services.config.dataPath, 'traces', `block_${hash.slice(0, 10)}-${i}-`)),
      ).toBe(true);
      const lines = readFileSync(p, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const last = lines.at(-1);
      expect(Object.keys(last)).toEqual(['output', 'gasUsed', 'time']);
      for (const l of lines.slice(0, -1)) {
        expect(Object.keys(l).slice(0, 4)).toEqual(['pc', 'op', 'gas', 'gasCost']);
        expect(typeof l.op).toBe('number');
        expect(l.gas).toMatch(/^0x[0-9a-f]+$/);
        expect(l).toHaveProperty('opName');
      }
    }
    const one = await chain.call('debug_standardTraceBlockToFile', [
      hash,
      {
        txHash: `0x${Buffer.from((block.transactions[0] as { hash(): Uint8Array }).hash()).toString('hex')}`,
        disableMemory: true,
      },
    ]);
    expect((one.result as string[]).length).toBe(1);
    expect(readFileSync((one.result as string[])[0] as string, 'utf8')).not.toContain('"memory"');
    expect((await chain.call('debug_standardTraceBlockToFile', [`0x${'00'.repeat(32)}`])).error).toEqual({
      code: -32000,
      message: 'Block not found',
    });
  });

  it('a block refused at import is kept with its RLP and can be traced to files', async () => {
    const head = chain.services.chain.getBlockByNumber(34n);
    if (!head) throw new Error('no head');
    const json = head.toJSON();
    const bad = createBlock(
      { ...json, header: { ...json.header, stateRoot: `0x${'11'.repeat(32)}` } },
      { common: head.common, setHardfork: true },
    );
    await expect(chain.services.importer.importBlock(bad)).rejects.toThrow();
    const list = (await chain.call('debug_getBadBlocks', [])).result as {
      block: { hash: string };
      hash: string;
      rlp: string;
    }[];
    const hash = `0x${Buffer.from(bad.hash()).toString('hex')}`;
    const entry = list.find((b) => b.hash === hash);
    expect(entry?.rlp).toBe(`0x${Buffer.from(bad.serialize()).toString('hex')}`);
    expect(entry?.block.hash).toBe(hash);
    const files = (await chain.call('debug_standardTraceBadBlockToFile', [hash])).result as string[];
    expect(files.length).toBe(bad.transactions.length);
    for (const f of files) expect(existsSync(f)).toBe(true);
    expect(
      (await chain.call('debug_standardTraceBadBlockToFile', [`0x${'22'.repeat(32)}`])).error?.code,
    ).toBe(-32000);
  });

  it('debug_replayBlock executes a block again; debug_setHead moves the head back', async () => {
    const top = chain.services.chain.getBlockByNumber(34n);
    if (!top) throw new Error('no head');
    const topHash = `0x${Buffer.from(top.hash()).toString('hex')}`;
    const replayed = await chain.call('debug_replayBlock', ['0x21']);
    expect(replayed.error).toBeUndefined();
    expect(replayed.result).toBe('Success');
    expect((await chain.call('eth_blockNumber', [])).result).toBe('0x21');
    // Block 0x22 left the canonical chain with the replay; by its hash it comes back.
    expect((await chain.call('debug_setHead', ['0x22'])).error).toEqual({
      code: -39001,
      message: 'Unknown block',
    });
    expect((await chain.call('debug_setHead', [topHash])).result).toBe('Success');
    expect((await chain.call('eth_blockNumber', [])).result).toBe('0x22');
    expect((await chain.call('debug_setHead', ['0x20', true])).result).toBe('Success');
    expect((await chain.call('eth_blockNumber', [])).result).toBe('0x20');
    // The head state moved with it: a balance read at latest is block 32's.
    const addr = '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b';
    expect((await chain.call('eth_getBalance', [addr, 'latest'])).result).toEqual(
      (await chain.call('eth_getBalance', [addr, '0x20'])).result,
    );
    expect((await chain.call('debug_setHead', ['0x99'])).error).toEqual({
      code: -39001,
      message: 'Unknown block',
    });
    expect((await chain.call('debug_setHead', ['0x22', 'yes'])).error?.code).toBe(-32602);
    expect((await chain.call('debug_replayBlock', ['0x99'])).error).toEqual({
      code: -39001,
      message: 'Unknown block',
    });
    // Refused while a block is being imported.
    const importing = chain.services.importer.importBlock(top);
    expect((await chain.call('debug_setHead', ['0x20'])).error).toEqual({
      code: -32000,
      message: 'Cannot change the chain head while the node is producing or importing blocks',
    });
    await importing;
    // Forward again to where the chain was.
    expect((await chain.call('debug_setHead', [topHash])).result).toBe('Success');
    expect((await chain.call('eth_blockNumber', [])).result).toBe('0x22');
  });
});
