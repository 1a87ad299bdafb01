/**
 * `alder operator generate-blockchain-config` through the real CLI: Besu's layout (genesis.json and
 * one folder per node named by address), the validators in the genesis extraData, imported public
 * keys, Besu's refusals — and a node started on the generated genesis with a generated key, answering
 * the QBFT group over HTTP.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeExtraData } from '../../src/consensus/bft/extraData.js';
import { addressOfPrivateKey, addressOfPublicKey } from '../../src/consensus/bft/hashing.js';
import { publicKeyOf } from '../../src/crypto/index.js';
import { removeDir, rpc, runCli, runCliStatus, startNode, tempDir } from '../helpers/node.js';
import { testKey } from './helpers.js';

function operatorConfig(consensus: 'qbft' | 'ibft2' | 'clique', nodes: object): object {
  return {
    genesis: {
      config: {
        chainId: 1337,
        londonBlock: 0,
        [consensus]: { blockperiodseconds: 2, epochlength: 30000, requesttimeoutseconds: 4 },
      },
      nonce: '0x0',
      timestamp: '0x58ee40ba',
      gasLimit: '0x1fffffffffffff',
      difficulty: '0x1',
      mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
      coinbase: '0x0000000000000000000000000000000000000000',
      alloc: { fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: 'BIG' } },
    },
    blockchain: { nodes },
  };
}

describe('alder operator generate-blockchain-config', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('alder-bftcfg-');
  });
  afterAll(() => removeDir(dir));

  function write(name: string, value: object): string {
    const file = join(dir, name);
    // A balance beyond 2^53 written as a JSON number, as genesis files often hold them.
    writeFileSync(file, JSON.stringify(value).replace('"BIG"', '90000000000000000000000'));
    return file;
  }

  it('generates keys and a QBFT genesis a node starts on', async () => {
    const cfg = write('qbft.json', operatorConfig('qbft', { generate: true, count: 4 }));
    const out = join(dir, 'qbft');
    const run = await runCli([
      'operator',
      'generate-blockchain-config',
      `--config-file=${cfg}`,
      `--to=${out}`,
      '--private-key-file-name=key',
    ]);
    expect(run.stdout).toContain('QBFT extraData with 4 validators');
    const folders = readdirSync(join(out, 'keys'));
    expect(folders).toHaveLength(4);
    for (const f of folders) {
      expect(f).toMatch(/^0x[0-9a-f]{40}$/);
      const priv = readFileSync(join(out, 'keys', f, 'key'), 'utf8');
      const pub = readFileSync(join(out, 'keys', f, 'key.pub'), 'utf8');
      expect(priv).toMatch(/^0x[0-9a-f]{64}$/);
      expect(pub).toMatch(/^0x[0-9a-f]{128}$/);
      const key = Buffer.from(priv.slice(2), 'hex');
      expect(addressOfPrivateKey(key)).toBe(f);
      expect(bytesToHex(publicKeyOf(key).subarray(1))).toBe(pub);
    }
    const text = readFileSync(join(out, 'genesis.json'), 'utf8');
    // Besu's printer: two-space indents, "key" : value, the big balance kept as the number it was.
    expect(text).toContain('"balance" : 90000000000000000000000');
    expect(text.startsWith('{\n  "config" : {\n    "chainId" : 1337,')).toBe(true);
    const genesis = JSON.parse(text) as { extraData: string };
    const extra = decodeExtraData('qbft', Buffer.from(genesis.extraData.slice(2), 'hex'));
    expect([...extra.validators].sort()).toEqual([...folders].sort());
    expect(extra.vote).toBeUndefined();
    expect(extra.round).toBe(0);
    expect(extra.seals).toEqual([]);

    const first = folders[0] as string;
    const node = await startNode([
      `--genesis-file=${join(out, 'genesis.json')}`,
      `--data-path=${join(dir, 'node')}`,
      `--node-private-key-file=${join(out, 'keys', first, 'key')}`,
      '--rpc-http-api=ETH,QBFT',
    ]);
    try {
      expect(await rpc(node.url, 'qbft_getValidatorsByBlockNumber', ['latest'])).toEqual([...folders].sort());
      expect(await rpc(node.url, 'qbft_getRequestTimeoutSeconds')).toBe(4);
      expect(await rpc(node.url, 'qbft_getPendingVotes')).toEqual({});
      const block = await rpc<{ hash: string; extraData: string; miner: string }>(
        node.url,
        'eth_getBlockByNumber',
        ['0x0', false],
      );
      expect(block.extraData).toBe(genesis.extraData);
      expect(await rpc(node.url, 'qbft_getValidatorsByBlockHash', [block.hash])).toEqual([...folders].sort());
    } finally {
      await node.stop();
    }
  });

  it('imports public keys, writes IBFT 2.0 extraData, and leaves other genesis files as they are', async () => {
    const a = testKey('import a');
    const b = testKey('import b');
    const keys = [a, b].map((k) => bytesToHex(publicKeyOf(k.key).subarray(1)));
    const out = join(dir, 'ibft');
    await runCli([
      'operator',
      'generate-blockchain-config',
      `--config-file=${write('ibft.json', operatorConfig('ibft2', { keys }))}`,
      `--to=${out}`,
    ]);
    expect(readdirSync(join(out, 'keys', a.address))).toEqual(['key.pub']);
    const genesis = JSON.parse(readFileSync(join(out, 'genesis.json'), 'utf8')) as { extraData: string };
    const extra = decodeExtraData('ibft2', Buffer.from(genesis.extraData.slice(2), 'hex'));
    // Written in the order of the configuration, as Besu does.
    expect(extra.validators).toEqual([a.address, b.address]);
    expect(addressOfPublicKey(Buffer.from((keys[0] as string).slice(2), 'hex'))).toBe(a.address);
    // ibft_getValidatorsByBlockNumber reads them from the header in that order; qbft_ sorts them.
    const { openBftChain } = await import('./helpers.js');
    const parsed = JSON.parse(readFileSync(join(out, 'genesis.json'), 'utf8')) as Record<string, unknown>;
    const node = await openBftChain({ ...parsed, alloc: {} }, a);
    try {
      const genesisHeader = node.backend.services.chain.headHeader();
      expect(await node.engine.bft.validatorsOf(genesisHeader)).toEqual([a.address, b.address]);
      expect(await node.engine.bft.validatorsAfter(genesisHeader)).toEqual([a.address, b.address].sort());
    } finally {
      await node.close();
    }

    const clique = join(dir, 'clique');
    await runCli([
      'operator',
      'generate-blockchain-config',
      `--config-file=${write('clique.json', operatorConfig('clique', { generate: true, count: 1 }))}`,
      `--to=${clique}`,
    ]);
    expect(JSON.parse(readFileSync(join(clique, 'genesis.json'), 'utf8')).extraData).toBeUndefined();
  });

  it('refuses what Besu refuses: a used output directory, equal file names, a bad key', async () => {
    const cfg = write('refuse.json', operatorConfig('qbft', { generate: true, count: 1 }));
    const used = join(dir, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'x'), '');
    const a = await runCliStatus([
      'operator',
      'generate-blockchain-config',
      `--config-file=${cfg}`,
      `--to=${used}`,
    ]);
    expect(a.code).not.toBe(0);
    expect(a.stderr).toContain('Output directory already exists.');
    const b = await runCliStatus([
      'operator',
      'generate-blockchain-config',
      `--config-file=${cfg}`,
      `--to=${join(dir, 'same')}`,
      '--private-key-file-name=key.pub',
    ]);
    expect(b.stderr).toContain('Output file paths must be unique.');
    const bad = write('bad.json', operatorConfig('qbft', { keys: [`0x${'11'.repeat(64)}`] }));
    const c = await runCliStatus([
      'operator',
      'generate-blockchain-config',
      `--config-file=${bad}`,
      `--to=${join(dir, 'bad')}`,
    ]);
    expect(c.stderr).toContain('is not a valid public key for elliptic curve secp256k1');
    const d = await runCliStatus(['operator', 'generate-blockchain-config', `--to=${join(dir, 'none')}`]);
    expect(d.stderr).toContain("Missing required option: '--config-file=<FILE>'");
  });
});
