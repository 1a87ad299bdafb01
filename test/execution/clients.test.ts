/**
 * Dapp libraries against a node whose genesis `alloc` holds a contract: viem and ethers read its
 * view, estimate gas for it, and decode the reason of its revert.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, JsonRpcProvider } from 'ethers';
import { createPublicClient, defineChain, http, parseAbi, toFunctionSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONDON_AT_GENESIS } from '../../bench/genchain.mjs';
import { type NodeProcess, removeDir, startNode, tempDir } from '../helpers/node.js';

const CONTRACT = '0x00000000000000000000000000000000000c0de1';
const CALLER = '0x1000000000000000000000000000000000000001';
const abi = parseAbi(['function value() view returns (uint256)', 'function fail() view']);

/** `value()` returns 42; any other call reverts with `Error("nope")`. */
function contractCode(): string {
  const selector = toFunctionSelector('value()').slice(2);
  const reason = Buffer.from('nope').toString('hex').padEnd(64, '0');
  const payload = `08c379a0${'20'.padStart(64, '0')}${'04'.padStart(64, '0')}${reason}`;
  const code = [
    '600035', // CALLDATALOAD(0)
    '60e01c', // >> 224: the selector
    `63${selector}`,
    '14', // EQ
    '601b57', // JUMPI to 0x1b
    '6064602660003960646000fd', // CODECOPY the 100-byte payload at 0x26, REVERT with it
    '5b602a60005260206000f3', // JUMPDEST: return 42
    payload,
  ].join('');
  return `0x${code}`;
}

describe('viem and ethers against a contract in the genesis alloc', () => {
  let dir: string;
  let node: NodeProcess;

  beforeAll(async () => {
    dir = tempDir();
    const genesis = {
      config: {
        chainId: 4242,
        ...LONDON_AT_GENESIS,
        ethash: {},
      },
      difficulty: '0x10000',
      gasLimit: '0x1c9c380',
      baseFeePerGas: '0x7',
      alloc: {
        [CONTRACT]: { balance: '0x0', code: contractCode() },
        [CALLER]: { balance: '0xde0b6b3a7640000' },
      },
    };
    const file = join(dir, 'genesis.json');
    writeFileSync(file, JSON.stringify(genesis));
    node = await startNode([`--genesis-file=${file}`, `--data-path=${join(dir, 'data')}`]);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('viem reads the view, estimates gas and decodes the revert reason', async () => {
    const chain = defineChain({
      id: 4242,
      name: 'alloc',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const client = createPublicClient({ chain, transport: http(node.url) });
    expect(await client.readContract({ address: CONTRACT, abi, functionName: 'value' })).toBe(42n);
    const gas = await client.estimateContractGas({
      address: CONTRACT,
      abi,
      functionName: 'value',
      account: CALLER,
    });
    expect(gas).toBeGreaterThan(21_000n);
    expect(gas).toBeLessThan(30_000n);
    await expect(client.readContract({ address: CONTRACT, abi, functionName: 'fail' })).rejects.toThrow(
      /nope/,
    );
  });

  it('ethers reads the view, estimates gas and decodes the revert reason', async () => {
    const provider = new JsonRpcProvider(node.url, 4242, { staticNetwork: true });
    try {
      const contract = new Contract(
        CONTRACT,
        ['function value() view returns (uint256)', 'function fail() view'],
        provider,
      );
      expect(await contract.value()).toBe(42n);
      const gas = await contract.value.estimateGas({ from: CALLER });
      expect(gas).toBeGreaterThan(21_000n);
      await expect(contract.fail()).rejects.toMatchObject({ reason: 'nope' });
    } finally {
      provider.destroy();
    }
  });
});
