/**
 * Durability: an import killed with SIGKILL part-way leaves a consistent chain; the restarted
 * node serves what was committed, and importing again finishes with the right head. A dev node
 * killed while it produces blocks from a stream of transactions restarts with every block it had
 * committed, their receipts, and a state whose trie and flat tables agree, and goes on producing.
 */
import { spawn } from 'node:child_process';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountKey,
  addressOf,
  type GeneratedChain,
  generateChain,
  TOKEN_ADDRESS,
} from '../../bench/genchain.mjs';
import { COINBASE, DEV_ADDRESSES, DEV_CHAIN_ID, DEV_KEYS } from '../helpers/devNetwork.js';
import { BIN, removeDir, rpc, runCli, startNode, tempDir } from '../helpers/node.js';

interface Proof {
  balance: string;
  nonce: string;
  accountProof: string[];
  storageProof: Array<{ key: string; value: string }>;
}

const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

/**
 * The state at `tag` read both ways: the trie (eth_getProof, whose first node hashes to the block's
 * state root) and the ordinary reads (the flat tables at the head). Returns the balances read.
 */
async function checkState(url: string, tag: string, addresses: string[], slots: string[] = []) {
  const block = await rpc<{ stateRoot: string }>(url, 'eth_getBlockByNumber', [tag, false]);
  const balances: string[] = [];
  for (const address of addresses) {
    const proof = await rpc<Proof>(url, 'eth_getProof', [address, slots, tag]);
    const rootNode = proof.accountProof[0];
    expect(`0x${Buffer.from(keccak_256(hexBytes(rootNode))).toString('hex')}`).toBe(block.stateRoot);
    const balance = await rpc<string>(url, 'eth_getBalance', [address, tag]);
    expect(balance).toBe(proof.balance);
    expect(await rpc<string>(url, 'eth_getTransactionCount', [address, tag])).toBe(proof.nonce);
    for (const { key, value } of proof.storageProof) {
      const stored = await rpc<string>(url, 'eth_getStorageAt', [address, key, tag]);
      expect(BigInt(stored)).toBe(BigInt(value));
    }
    balances.push(balance);
  }
  return balances;
}

describe('SIGKILL during import', () => {
  const dirs: string[] = [];
  let chain: GeneratedChain;
  beforeAll(async () => {
    const out = tempDir();
    dirs.push(out);
    chain = await generateChain({ blocks: 150, txsPerBlock: 10, accounts: 16, outDir: out });
  });
  afterAll(() => {
    for (const d of dirs) removeDir(d);
  });

  it('restarts with a consistent chain and finishes the import', async () => {
    const accounts = [
      ...Array.from({ length: 16 }, (_, i) => addressOf(accountKey(i)).toString()),
      TOKEN_ADDRESS,
    ];
    const slots = ['0x0', '0x1', '0x2'];
    let killedAt = '';
    let balancesAtKill: string[] = [];
    const dir = tempDir();
    dirs.push(dir);
    const genesis = `--genesis-file=${chain.genesisPath}`;
    const args = [
      BIN,
      genesis,
      `--data-path=${dir}`,
      '--logging=DEBUG',
      'blocks',
      'import',
      `--from=${chain.chainPath}`,
    ];
    // Kill as soon as the debug log reports the tenth imported block.
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const killed = new Promise<void>((res) => {
      const onData = (d: Buffer) => {
        out += d;
        if (
          (out.match(/Imported block/g) ?? []).length >= 10 &&
          child.pid !== undefined &&
          child.exitCode === null
        ) {
          process.kill(child.pid, 'SIGKILL');
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', () => res());
    });
    await killed;
    expect(child.signalCode).toBe('SIGKILL');

    // The restarted node serves a consistent chain: its head block and that block's state are readable.
    const node = await startNode([genesis, `--data-path=${dir}`]);
    try {
      const head = await rpc<{ number: string; hash: string }>(node.url, 'eth_getBlockByNumber', [
        'latest',
        false,
      ]);
      const n = Number(head.number);
      expect(n).toBeGreaterThanOrEqual(10);
      expect(n).toBeLessThan(chain.headNumber);
      const byHash = await rpc<{ number: string }>(node.url, 'eth_getBlockByHash', [head.hash, false]);
      expect(byHash.number).toBe(head.number);
      const receipts = await rpc<unknown[]>(node.url, 'eth_getBlockReceipts', [head.number]);
      expect(receipts.length).toBeGreaterThan(0);
      killedAt = head.number;
      balancesAtKill = await checkState(node.url, 'latest', accounts, slots);
    } finally {
      await node.stop();
    }

    // Importing the same file again skips what is there and completes the chain.
    await runCli([genesis, `--data-path=${dir}`, 'blocks', 'import', `--from=${chain.chainPath}`]);
    const node2 = await startNode([genesis, `--data-path=${dir}`]);
    try {
      const head = await rpc<{ number: string; hash: string }>(node2.url, 'eth_getBlockByNumber', [
        'latest',
        false,
      ]);
      expect(Number(head.number)).toBe(chain.headNumber);
      expect(head.hash).toBe(chain.headHash);
      // The state the killed node had at its head is the state the full import has at that block.
      expect(await checkState(node2.url, killedAt, accounts, slots)).toEqual(balancesAtKill);
      await checkState(node2.url, 'latest', accounts, slots);
    } finally {
      await node2.stop();
    }
  });
});

describe('SIGKILL during block production', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) removeDir(d);
  });

  it('restarts with every committed block, its receipts and its state, and produces on', async () => {
    const dir = tempDir('alder-crash-mine-');
    dirs.push(dir);
    const args = ['--network=dev', `--data-path=${dir}`, '--miner-enabled', `--miner-coinbase=${COINBASE}`];
    const sender = privateKeyToAccount(DEV_KEYS.b);
    const sign = (nonce: number) =>
      sender.signTransaction({
        type: 'legacy',
        chainId: DEV_CHAIN_ID,
        nonce,
        to: DEV_ADDRESSES.c,
        value: 1000n + BigInt(nonce),
        gas: 21_000n,
        gasPrice: 20_000_000_000n,
      });
    const node = await startNode(args);
    let sent = 0;
    try {
      // A stream of transfers; the node is killed while it mines them, a few blocks in.
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const batch = await Promise.all(Array.from({ length: 8 }, (_, i) => sign(sent + i)));
        await Promise.all(batch.map((raw) => rpc(node.url, 'eth_sendRawTransaction', [raw])));
        sent += batch.length;
        if (Number(await rpc<string>(node.url, 'eth_blockNumber')) >= 3) break;
        // Stay within the pool's distance for future nonces.
        while (
          sent - Number(await rpc<string>(node.url, 'eth_getTransactionCount', [DEV_ADDRESSES.b, 'latest'])) >
          24
        )
          await new Promise((r) => setTimeout(r, 20));
      }
      const exited = new Promise<void>((res) => node.child.once('exit', () => res()));
      process.kill(node.child.pid as number, 'SIGKILL');
      await exited;
    } catch (err) {
      await node.stop();
      throw err;
    }
    expect(node.child.signalCode).toBe('SIGKILL');

    const again = await startNode(args);
    try {
      const head = Number(await rpc<string>(again.url, 'eth_blockNumber'));
      expect(head).toBeGreaterThanOrEqual(3);
      // Every committed block has its receipts, and the sender's nonce counts exactly its mined transfers.
      let mined = 0;
      for (let n = 1; n <= head; n++) {
        const block = await rpc<{ transactions: string[] }>(again.url, 'eth_getBlockByNumber', [
          `0x${n.toString(16)}`,
          false,
        ]);
        const receipts = await rpc<Array<{ status: string }>>(again.url, 'eth_getBlockReceipts', [
          `0x${n.toString(16)}`,
        ]);
        expect(receipts.length).toBe(block.transactions.length);
        for (const r of receipts) expect(r.status).toBe('0x1');
        mined += block.transactions.length;
      }
      await checkState(again.url, 'latest', [DEV_ADDRESSES.b, DEV_ADDRESSES.c, COINBASE]);
      expect(
        Number(await rpc<string>(again.url, 'eth_getTransactionCount', [DEV_ADDRESSES.b, 'latest'])),
      ).toBe(mined);
      // Production goes on from the restarted state: the next transfer is mined.
      const hash = await rpc<string>(again.url, 'eth_sendRawTransaction', [await sign(mined)]);
      const until = Date.now() + 30_000;
      let receipt: { status: string } | null = null;
      while (!receipt && Date.now() < until) {
        receipt = await rpc<{ status: string } | null>(again.url, 'eth_getTransactionReceipt', [hash]);
        if (!receipt) await new Promise((r) => setTimeout(r, 100));
      }
      expect(receipt?.status).toBe('0x1');
      await checkState(again.url, 'latest', [DEV_ADDRESSES.b, DEV_ADDRESSES.c, COINBASE]);
    } finally {
      await again.stop();
    }
  });
});
