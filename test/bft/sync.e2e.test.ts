/**
 * A BFT chain over devp2p between real `bin/alder` processes on 127.0.0.1: a validator's data
 * directory holds QBFT blocks (built, sealed and committed in-process), and a node that joins later
 * syncs them — block hashes that leave seals and round out, committed seals checked on import.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rpc } from '../helpers/node.js';
import { blockHash, blockNumber, TestNetwork, until } from '../p2p/helpers.js';
import { bftGenesis, openBftChain, produceBlock, type TestKey, testKey, validatorKeys } from './helpers.js';

const V = validatorKeys(4, 'sync');
const [V0, V1, V2] = V as [TestKey, TestKey, TestKey];
const genesis = bftGenesis(
  'qbft',
  V.map((v) => v.address),
  {},
  { config: { shanghaiTime: 0 } },
);
const net = new TestNetwork(genesis);

afterAll(() => net.stopAll(), 60_000);

describe('QBFT sync over devp2p', () => {
  it('a node that joins later syncs sealed blocks from a validator', async () => {
    const validator = await net.add(V0.key);
    const follower = await net.add(testKey('sync follower').key);
    const chain = await openBftChain(genesis, V0, [], { dir: validator.dir });
    let parent = chain.backend.services.chain.headHeader();
    for (let i = 0; i < 6; i++)
      parent = (await produceBlock(chain, parent, [V0, V1, V2], { round: i % 2 })).header;
    await chain.close();

    net.staticNodes(follower, [validator]);
    const a = await net.start(validator);
    const b = await net.start(follower);
    await until(
      'the follower at block 6',
      async () => ((await blockNumber(b.url)) === 6n ? true : undefined),
      45_000,
    );
    for (const n of [1n, 6n]) expect(await blockHash(b.url, n)).toBe(await blockHash(a.url, n));
    const block = await rpc<{ extraData: string; miner: string; difficulty: string }>(
      b.url,
      'eth_getBlockByNumber',
      ['0x6', false],
    );
    expect(block.miner).toBe(V0.address);
    expect(block.difficulty).toBe('0x1');
  }, 90_000);
});
