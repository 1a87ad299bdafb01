/**
 * Mining on the dev network through the built CLI: the first block, fee and nonce order of included
 * transactions, getWork → a real nonce found here → submitWork, the MINER methods and their errors,
 * and a restart that reuses the epoch cache and keeps mining.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToBigIntBE } from '../../src/consensus/ethash/algorithm.js';
import { EthashCaches } from '../../src/consensus/ethash/caches.js';
import { type NodeProcess, removeDir, runCliStatus, startNode, tempDir } from '../helpers/node.js';

const COINBASE = '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73';
const KEYS = [
  '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
  '0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f',
];
const RECIPIENT = '0x000000000000000000000000000000000000dead';
const MINING = [
  '--network=dev',
  '--miner-enabled',
  `--miner-coinbase=${COINBASE}`,
  '--rpc-http-api=ETH,MINER,TXPOOL',
];

interface Reply {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

async function call(url: string, method: string, params: unknown[] = []): Promise<Reply> {
  const send = () =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  // A pooled keep-alive socket the server closed while the test was solving: one fresh retry.
  const r = await send().catch(() => send());
  return (await r.json()) as Reply;
}

async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await call(url, method, params);
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result as T;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function sendTransfer(url: string, key: string, nonce: number, tip: bigint): Promise<string> {
  const raw = await new Wallet(key).signTransaction({
    type: 2,
    chainId: 1337,
    nonce,
    to: RECIPIENT,
    value: 1n,
    gasLimit: 21000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: tip,
  });
  return result<string>(url, 'eth_sendRawTransaction', [raw]);
}

async function receipt(url: string, hash: string) {
  return until(`receipt of ${hash}`, async () => {
    const r = await result<{ blockNumber: string; transactionIndex: string } | null>(
      url,
      'eth_getTransactionReceipt',
      [hash],
    );
    return r ?? undefined;
  });
}

describe('mining on the dev network', () => {
  let dir: string;
  let node: NodeProcess;

  beforeAll(async () => {
    dir = tempDir('alder-mining-');
    node = await startNode([...MINING, `--data-path=${dir}`]);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('mines its first block', async () => {
    const n = await until('block 1', async () => {
      const hex = await result<string>(node.url, 'eth_blockNumber');
      return BigInt(hex) >= 1n ? BigInt(hex) : undefined;
    });
    expect(n).toBeGreaterThanOrEqual(1n);
    expect(await result(node.url, 'eth_mining')).toBe(true);
    const block = await result<{ miner: string; difficulty: string }>(node.url, 'eth_getBlockByNumber', [
      '0x1',
      false,
    ]);
    expect(block.miner).toBe(COINBASE);
    expect(block.difficulty).toBe('0x64');
  });

  it('keeps empty blocks with the clock: the drift lead stays for blocks with transactions', async () => {
    await until('block 3', async () => {
      const hex = await result<string>(node.url, 'eth_blockNumber');
      return BigInt(hex) >= 3n ? true : undefined;
    });
    const head = await result<{ timestamp: string; transactions: string[] }>(
      node.url,
      'eth_getBlockByNumber',
      ['latest', false],
    );
    expect(head.transactions).toEqual([]);
    // Besu's scheduler would let these run 10 s ahead; empty blocks here wait for the clock.
    expect(Number(head.timestamp)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
  });

  it('includes transactions by fee priority, each sender in nonce order', async () => {
    expect(await result(node.url, 'miner_stop')).toBe(true);
    expect(await result(node.url, 'eth_mining')).toBe(false);
    const a = new Wallet(KEYS[1] as string).address;
    const nonceA = Number(await result<string>(node.url, 'eth_getTransactionCount', [a, 'latest']));
    const b = new Wallet(KEYS[2] as string).address;
    const nonceB = Number(await result<string>(node.url, 'eth_getTransactionCount', [b, 'latest']));
    // A: three transactions with a low tip; B: one with a high tip; A's later nonces offer more.
    const a0 = await sendTransfer(node.url, KEYS[1] as string, nonceA, 1_000_000_000n);
    const a1 = await sendTransfer(node.url, KEYS[1] as string, nonceA + 1, 5_000_000_000n);
    const b0 = await sendTransfer(node.url, KEYS[2] as string, nonceB, 3_000_000_000n);
    const a2 = await sendTransfer(node.url, KEYS[1] as string, nonceA + 2, 1_000_000_000n);
    expect(await result(node.url, 'miner_start')).toBe(true);
    const rs = await Promise.all([a0, a1, b0, a2].map((h) => receipt(node.url, h)));
    expect(new Set(rs.map((r) => r.blockNumber)).size).toBe(1);
    const order = rs.map((r) => Number(r.transactionIndex));
    // B (3 gwei) beats A's first (1 gwei); A's second (5 gwei) can only follow A's first.
    expect(order).toEqual([1, 2, 0, 3]);
  });

  it('accepts a real solution through eth_submitWork and imports that block', async () => {
    const caches = new EthashCaches(join(dir, 'ethash'));
    const epoch = await caches.get(0);
    let sealed: { number: string; nonce: string; mix: string } | undefined;
    for (let attempt = 0; attempt < 30 && !sealed; attempt++) {
      const work = await result<string[]>(node.url, 'eth_getWork');
      expect(work).toHaveLength(4);
      expect(work[1]).toBe(`0x${'00'.repeat(32)}`);
      expect(BigInt(work[2] as string)).toBe((1n << 256n) / 100n);
      const headerHash = Buffer.from((work[0] as string).slice(2), 'hex');
      const target = BigInt(work[2] as string);
      let nonce = BigInt(Math.floor(Math.random() * 2 ** 40));
      for (;;) {
        const nonceBytes = setLengthLeft(bigIntToBytes(nonce), 8);
        const { mixDigest, result: pow } = epoch.hashimoto.run(headerHash, nonceBytes);
        if (bytesToBigIntBE(pow) <= target) {
          const nonceHex = `0x${Buffer.from(nonceBytes).toString('hex')}`;
          const mixHex = `0x${Buffer.from(mixDigest).toString('hex')}`;
          const ok = await result<boolean>(node.url, 'eth_submitWork', [nonceHex, work[0], mixHex]);
          // The node's own search may win the race for this work: then try the next block.
          if (ok) sealed = { number: work[3] as string, nonce: nonceHex, mix: mixHex };
          break;
        }
        nonce++;
      }
    }
    expect(sealed).toBeDefined();
    const s = sealed as { number: string; nonce: string; mix: string };
    const block = await until('the submitted block', async () => {
      const b = await result<{ nonce: string; mixHash: string } | null>(node.url, 'eth_getBlockByNumber', [
        s.number,
        false,
      ]);
      return b ?? undefined;
    });
    expect(block.nonce).toBe(s.nonce);
    expect(block.mixHash).toBe(s.mix);
  });

  it('refuses a nonce that does not meet the difficulty and imports nothing for it', async () => {
    const caches = new EthashCaches(join(dir, 'ethash'));
    const epoch = await caches.get(0);
    const work = await result<string[]>(node.url, 'eth_getWork');
    const headerHash = Buffer.from((work[0] as string).slice(2), 'hex');
    const target = BigInt(work[2] as string);
    let nonce = 1n;
    let failing: { nonce: string; mix: string } | undefined;
    while (!failing) {
      const nonceBytes = setLengthLeft(bigIntToBytes(nonce), 8);
      const { mixDigest, result: pow } = epoch.hashimoto.run(headerHash, nonceBytes);
      if (bytesToBigIntBE(pow) > target)
        failing = {
          nonce: `0x${Buffer.from(nonceBytes).toString('hex')}`,
          mix: `0x${Buffer.from(mixDigest).toString('hex')}`,
        };
      nonce++;
    }
    expect(await result(node.url, 'eth_submitWork', [failing.nonce, work[0], failing.mix])).toBe(false);
    expect(
      await result(node.url, 'eth_submitWork', [
        `0x${'00'.repeat(8)}`,
        `0x${'11'.repeat(32)}`,
        `0x${'22'.repeat(32)}`,
      ]),
    ).toBe(false);
    const mined = await until('the block of that work', async () => {
      const b = await result<{ nonce: string } | null>(node.url, 'eth_getBlockByNumber', [work[3], false]);
      return b ?? undefined;
    });
    expect(mined.nonce).not.toBe(failing.nonce);
  });

  it('answers the MINER methods and their errors as Besu does', async () => {
    expect(await result(node.url, 'miner_setMinGasPrice', ['0x3e8'])).toBe(true);
    expect(await result(node.url, 'miner_getMinGasPrice')).toBe('0x3e8');
    expect(await result(node.url, 'miner_setMinPriorityFee', ['0x7'])).toBe(true);
    expect(await result(node.url, 'miner_getMinPriorityFee')).toBe('0x7');
    expect(await result(node.url, 'miner_setMinPriorityFee', ['0x0'])).toBe(true);
    const badPrice = await call(node.url, 'miner_setMinGasPrice', ['0xzz']);
    expect(badPrice.error?.code).toBe(-32602);
    expect(badPrice.error?.message).toBe('Invalid min gas price params');
    expect(await result(node.url, 'miner_setExtraData', ['0x616c646572'])).toBe(true);
    expect(await result(node.url, 'miner_getExtraData')).toBe('0x616c646572');
    const tooLong = await call(node.url, 'miner_setExtraData', [`0x${'ab'.repeat(33)}`]);
    expect(tooLong.error?.code).toBe(-32602);
    expect(tooLong.error?.message).toBe('Invalid extra data params');
    expect(typeof tooLong.error?.data).toBe('string');
    const badCoinbase = await call(node.url, 'miner_setCoinbase', ['0xnothex']);
    expect(badCoinbase.error).toEqual({ code: -32602, message: 'Invalid address params' });
    expect(await result(node.url, 'miner_setCoinbase', [COINBASE])).toBe(true);
    expect(await result(node.url, 'miner_changeTargetGasLimit', ['0x1fffffffffffff'])).toBe('Success');
    const badTarget = await call(node.url, 'miner_changeTargetGasLimit', ['0x1']);
    expect(badTarget.error?.code).toBe(-32602);
    expect(
      await result(node.url, 'eth_submitHashrate', [`0x${'00'.repeat(31)}05`, `0x${'aa'.repeat(32)}`]),
    ).toBe(true);
    expect(BigInt(await result<string>(node.url, 'eth_hashrate'))).toBeGreaterThanOrEqual(5n);
    const newest = await until('a block with the new extra data', async () => {
      const b = await result<{ extraData: string }>(node.url, 'eth_getBlockByNumber', ['latest', false]);
      return b.extraData === '0x616c646572' ? b : undefined;
    });
    expect(newest.extraData).toBe('0x616c646572');
    expect(await result(node.url, 'miner_stop')).toBe(true);
    const noWork = await call(node.url, 'eth_getWork');
    expect(noWork.error).toEqual({ code: -32000, message: 'No mining work available yet' });
    expect(await result(node.url, 'miner_start')).toBe(true);
  });

  it('restarts on the same data: the epoch cache is reused and mining continues', async () => {
    const cacheFile = (await import('node:fs'))
      .readdirSync(join(dir, 'ethash'))
      .find((f) => f.startsWith('cache-'));
    expect(cacheFile).toBeDefined();
    const path = join(dir, 'ethash', cacheFile as string);
    const before = statSync(path).mtimeMs;
    const head = BigInt(await result<string>(node.url, 'eth_blockNumber'));
    await node.stop();
    node = await startNode([...MINING, `--data-path=${dir}`]);
    expect(BigInt(await result<string>(node.url, 'eth_blockNumber'))).toBeGreaterThanOrEqual(head);
    const sender = new Wallet(KEYS[0] as string).address;
    const nonce = Number(await result<string>(node.url, 'eth_getTransactionCount', [sender, 'latest']));
    const hash = await sendTransfer(node.url, KEYS[0] as string, nonce, 2_000_000_000n);
    const r = await receipt(node.url, hash);
    expect(BigInt(r.blockNumber)).toBeGreaterThan(head);
    expect(statSync(path).mtimeMs).toBe(before);
  });
});

describe('mining without a coinbase', () => {
  it('refuses --miner-enabled without --miner-coinbase at startup', async () => {
    const dir = tempDir('alder-mining-');
    try {
      const r = await runCliStatus(['--network=dev', '--miner-enabled', `--data-path=${dir}`]);
      expect(r.code).not.toBe(0);
      expect(r.stderr + r.stdout).toContain('Unable to mine without a valid coinbase');
    } finally {
      removeDir(dir);
    }
  });

  it('answers miner_start with -32010 when no coinbase is set', async () => {
    const dir = tempDir('alder-mining-');
    const node = await startNode(['--network=dev', '--rpc-http-api=ETH,MINER', `--data-path=${dir}`]);
    try {
      const r = await call(node.url, 'miner_start');
      expect(r.error).toEqual({
        code: -32010,
        message: 'Coinbase not set. Unable to start mining without a coinbase',
      });
      expect(await result(node.url, 'eth_mining')).toBe(false);
      expect(await result(node.url, 'eth_hashrate')).toBe('0x0');
    } finally {
      await node.stop();
      removeDir(dir);
    }
  });
});
