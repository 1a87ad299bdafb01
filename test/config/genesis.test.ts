import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBlockHeader, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { GenesisError } from '../../src/config/errors.js';
import {
  createCommon,
  forkSchedule,
  type GenesisSpec,
  genesisHeaderFields,
  loadGenesisFile,
  parseGenesis,
  quoteLargeIntegers,
} from '../../src/config/genesis.js';
import { NETWORKS } from '../../src/config/networks/index.js';

const CONFORMANCE = '/work/shared/conformance';
const RPC_COMPAT = `${CONFORMANCE}/rpc-compat/genesis.json`;
const HIVE = `${CONFORMANCE}/besu/chain-data/hive/testGenesis.json`;
const MAINNET_FUTURE = `${CONFORMANCE}/besu/eth/config/chain-data/mainnet-plus-future.json`;
const SIMULATE = `${CONFORMANCE}/besu/eth/simulateV1/chain-data/genesis.json`;
const BUILD_BLOCK = `${CONFORMANCE}/besu/testing_buildBlockV1/chain-data/genesis.json`;

async function stateRoot(spec: GenesisSpec): Promise<Uint8Array> {
  const sm = new MerkleStateManager();
  for (const [addr, acc] of spec.alloc) {
    const address = createAddressFromString(addr);
    await sm.putAccount(address, new Account(acc.nonce, acc.balance));
    if (acc.code.length > 0) await sm.putCode(address, acc.code);
    for (const [slot, value] of acc.storage) await sm.putStorage(address, slot, value);
  }
  await sm.flush();
  return sm.getStateRoot();
}

async function genesisHash(spec: GenesisSpec): Promise<string> {
  const common = createCommon(spec);
  const header = createBlockHeader(
    { ...genesisHeaderFields(spec), stateRoot: await stateRoot(spec) },
    { common, setHardfork: true, skipConsensusFormatValidation: true },
  );
  return bytesToHex(header.hash());
}

describe('rpc-compat genesis', () => {
  const spec = loadGenesisFile(RPC_COMPAT);

  it('parses the header fields and the allocation', () => {
    expect(spec.config.chainId).toBe(3503995874084926n);
    expect(spec.config.terminalTotalDifficulty).toBe(4732352n);
    expect(spec.config.depositContractAddress).toBe('0x0000000000000000000000000000000000000000');
    expect(spec.gasLimit).toBe(0x5f5e100n);
    expect(spec.difficulty).toBe(0x20000n);
    expect(bytesToHex(spec.extraData)).toBe('0x68697665636861696e');
    expect(spec.config.consensus).toBe('ethash');
    const beaconRoots = spec.alloc.get('0x000f3df6d732807ef1319fb7b8bb8522d0beac02');
    expect(beaconRoots?.balance).toBe(0x2an);
    expect(beaconRoots?.code.length).toBeGreaterThan(0);
    expect(spec.config.blobSchedule.bpo2).toEqual({
      target: 14n,
      max: 21n,
      baseFeeUpdateFraction: 11684671n,
    });
  });

  it('activates each fork by block number or timestamp', () => {
    const common = createCommon(spec);
    expect(common.hardfork()).toBe('homestead');
    const at = (blockNumber: bigint, timestamp: bigint): string =>
      common.getHardforkBy({ blockNumber, timestamp });
    expect(at(3n, 30n)).toBe('tangerineWhistle');
    expect(at(27n, 270n)).toBe('london');
    expect(at(35n, 350n)).toBe('grayGlacier');
    expect(at(40n, 390n)).toBe('shanghai');
    expect(at(40n, 420n)).toBe('cancun');
    expect(at(40n, 450n)).toBe('prague');
    expect(at(40n, 480n)).toBe('osaka');
    expect(at(40n, 510n)).toBe('bpo1');
    expect(at(40n, 540n)).toBe('bpo2');
  });

  it('is post-merge from block 36 (terminal total difficulty, merge netsplit block)', () => {
    const common = createCommon(spec);
    common.setHardforkBy({ blockNumber: 35n, timestamp: 350n });
    expect(common.gteHardfork('paris')).toBe(false);
    expect(common.consensusType()).toBe('pow');
    common.setHardforkBy({ blockNumber: 36n, timestamp: 360n });
    expect(common.gteHardfork('paris')).toBe(true);
    expect(common.consensusType()).toBe('pos');
  });

  it('gives Common the blob schedule of every blob fork, BPO forks included', () => {
    const common = createCommon(spec);
    const expected: Array<[bigint, string, bigint, bigint, bigint]> = [
      [420n, 'cancun', 3n, 6n, 3338477n],
      [450n, 'prague', 6n, 9n, 5007716n],
      [480n, 'osaka', 6n, 9n, 5007716n],
      [510n, 'bpo1', 10n, 15n, 8346193n],
      [540n, 'bpo2', 14n, 21n, 11684671n],
    ];
    for (const [timestamp, fork, target, max, fraction] of expected) {
      expect(common.setHardforkBy({ blockNumber: 40n, timestamp })).toBe(fork);
      expect(common.getBlobGasSchedule()).toEqual({
        targetBlobGasPerBlock: target * 131072n,
        maxBlobGasPerBlock: max * 131072n,
        blobGasPriceUpdateFraction: fraction,
      });
      expect(common.param('maxBlobGasPerBlock')).toBe(max * 131072n);
      expect(common.param('blobGasPriceUpdateFraction')).toBe(fraction);
    }
  });

  it('produces the genesis block the rpc-compat suite expects', async () => {
    const fields = genesisHeaderFields(spec);
    expect(fields.baseFeePerGas).toBeUndefined();
    expect(fields.withdrawalsRoot).toBeUndefined();
    expect(bytesToHex(await stateRoot(spec))).toBe(
      '0xdc43f460541a253c0f64b6943ef83fa3bd601699a255622f088d46f7fde359fc',
    );
    expect(await genesisHash(spec)).toBe(
      '0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99',
    );
  });
});

describe('Besu hive genesis', () => {
  const spec = loadGenesisFile(HIVE);

  it('has London at block 33 and Shanghai/Cancun by timestamp', () => {
    expect(spec.config.chainId).toBe(1n);
    expect(spec.config.forks.london).toEqual({ block: 33n });
    const common = createCommon(spec);
    expect(common.hardfork()).toBe('chainstart');
    expect(common.getHardforkBy({ blockNumber: 32n, timestamp: spec.timestamp + 320n })).toBe('chainstart');
    expect(common.getHardforkBy({ blockNumber: 33n, timestamp: spec.timestamp + 330n })).toBe('london');
    common.setHardforkBy({ blockNumber: 33n, timestamp: spec.timestamp + 330n });
    expect(common.isActivatedEIP(2929)).toBe(true); // Berlin rules come with London
    expect(common.isActivatedEIP(1559)).toBe(true);
    expect(common.getHardforkBy({ blockNumber: 40n, timestamp: 1444660030n })).toBe('shanghai');
    expect(common.getHardforkBy({ blockNumber: 40n, timestamp: 1444660040n })).toBe('cancun');
    const names = forkSchedule(spec).map((f) => f.name);
    expect(names).not.toContain('dao');
  });

  it('produces the genesis block stored first in testBlockchain.blocks', async () => {
    const blocks = readFileSync(`${CONFORMANCE}/besu/chain-data/hive/testBlockchain.blocks`);
    const first = RLP.decode(new Uint8Array(blocks), true).data as unknown as Uint8Array[][];
    const header = createBlockHeaderFromBytesArray(first[0] as Uint8Array[], {
      common: createCommon(spec),
      setHardfork: true,
      skipConsensusFormatValidation: true,
    });
    expect(await genesisHash(spec)).toBe(bytesToHex(header.hash()));
  });
});

describe('other genesis files', () => {
  it('keeps integers above 2^53 exact (mainnet terminal total difficulty)', () => {
    const spec = loadGenesisFile(MAINNET_FUTURE);
    expect(spec.config.terminalTotalDifficulty).toBe(58750000000000000000000n);
    expect(spec.config.forks.dao).toEqual({ block: 1920000n });
    expect(spec.config.blobSchedule.prague?.max).toBe(9n);
    const common = createCommon(spec);
    expect(common.getHardforkBy({ blockNumber: 12965000n, timestamp: 1628166822n })).toBe('london');
    expect(common.getHardforkBy({ blockNumber: 19000000n, timestamp: 1710338135n })).toBe('cancun');
    expect(quoteLargeIntegers('{"a":"12345678901234567890","b":12345678901234567890,"c":1.5e300}')).toBe(
      '{"a":"12345678901234567890","b":"12345678901234567890","c":1.5e300}',
    );
  });

  it('has the genesis hash Besu computes for mainnet-plus-future (fork id at block 0)', async () => {
    const spec = loadGenesisFile(MAINNET_FUTURE);
    const hash = await genesisHash(spec);
    expect(createCommon(spec).forkHash('chainstart', hexToBytes(hash as `0x${string}`))).toBe('0x1ac6901c');
  });

  it('reads config keys case-insensitively (chainID) and matches the simulateV1 genesis block', async () => {
    const spec = loadGenesisFile(SIMULATE);
    expect(spec.config.chainId).toBe(3503995874084926n);
    expect(spec.config.forks.petersburg).toEqual({ block: 15n }); // constantinopleFixBlock
    const blocks = readFileSync(`${CONFORMANCE}/besu/eth/simulateV1/chain-data/blocks.bin`);
    const first = RLP.decode(new Uint8Array(blocks), true).data as unknown as Uint8Array[][];
    const header = createBlockHeaderFromBytesArray(first[0] as Uint8Array[], {
      common: createCommon(spec),
      setHardfork: true,
      skipConsensusFormatValidation: true,
    });
    expect(await genesisHash(spec)).toBe(bytesToHex(header.hash()));
  });

  it('builds a post-merge genesis header with every fork field', () => {
    const spec = loadGenesisFile(BUILD_BLOCK);
    const f = genesisHeaderFields(spec);
    expect(f.baseFeePerGas).toBe(7n);
    expect(bytesToHex(f.withdrawalsRoot as Uint8Array)).toBe(
      '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
    );
    expect(f.blobGasUsed).toBe(0n);
    expect(f.excessBlobGas).toBe(0n);
    expect(f.parentBeaconBlockRoot).toEqual(new Uint8Array(32));
    expect(bytesToHex(f.requestsHash as Uint8Array)).toBe(
      '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    const common = createCommon(spec);
    expect(common.gteHardfork('prague')).toBe(true);
    expect(common.consensusType()).toBe('pos');
  });

  it('defaults the genesis base fee to 1 gwei when London is active at genesis', () => {
    const spec = parseGenesis({
      config: { chainId: 9, londonBlock: 0 },
      gasLimit: '0x1000000',
      difficulty: '0x1',
    });
    expect(genesisHeaderFields(spec).baseFeePerGas).toBe(1000000000n);
    const later = parseGenesis({
      config: { chainId: 9, londonBlock: 5 },
      gasLimit: '0x1000000',
      difficulty: '0x1',
      baseFeePerGas: '0x7',
    });
    expect(genesisHeaderFields(later).baseFeePerGas).toBeUndefined();
  });

  it('reads clique and ibft2 settings', () => {
    const clique = parseGenesis({
      config: { chainId: 5, londonBlock: 0, clique: { blockperiodseconds: 2, epochlength: 100 } },
      gasLimit: '0x1000000',
      difficulty: '0x1',
      extraData: `0x${'00'.repeat(32)}${'11'.repeat(20)}${'00'.repeat(65)}`,
    });
    expect(clique.config.consensus).toBe('clique');
    expect(clique.config.clique).toEqual({
      blockPeriodSeconds: 2,
      epochLength: 100n,
      createEmptyBlocks: true,
    });
    expect(createCommon(clique).consensusAlgorithm()).toBe('clique');
    const ibft = parseGenesis({
      config: { chainId: 5, berlinBlock: 0, ibft2: { blockPeriodSeconds: 3, blockReward: '0x10' } },
      gasLimit: '0x1000000',
      difficulty: '0x1',
    });
    expect(ibft.config.consensus).toBe('ibft2');
    expect(ibft.config.ibft2?.blockPeriodSeconds).toBe(3);
    expect(ibft.config.ibft2?.blockReward).toBe(16n);
  });
});

describe('dev preset', () => {
  const spec = NETWORKS.dev.genesis();

  it("matches Besu's dev.json", () => {
    expect(spec.config.chainId).toBe(1337n);
    expect(NETWORKS.dev.networkId).toBe(2018n);
    expect(spec.config.forks).toEqual({ london: { block: 0n } });
    expect(spec.config.contractSizeLimit).toBe(2147483647);
    expect(spec.config.ethash?.fixedDifficulty).toBe(100n);
    expect(spec.nonce).toBe(0x42n);
    expect(spec.baseFeePerGas).toBe(0n);
    expect(spec.timestamp).toBe(0n);
    expect(bytesToHex(spec.extraData)).toBe(
      '0x11bbe8db4e347b4e8c937c1c8370e4b5ed33adb3db69cbdb7a38e1e50b1b82fa',
    );
    expect(spec.gasLimit).toBe(0x1fffffffffffffn);
    expect(spec.difficulty).toBe(0x10000n);
    expect(spec.mixHash).toEqual(new Uint8Array(32));
    expect(spec.coinbase).toBe('0x0000000000000000000000000000000000000000');
    expect([...spec.alloc.entries()].map(([a, acc]) => [a, acc.balance])).toEqual([
      ['0xfe3b557e8fb62b89f4916b721be55ceb828dbd73', 200n * 10n ** 18n],
      ['0x627306090abab3a6e1400e9345bc60c78a8bef57', 90000n * 10n ** 18n],
      ['0xf17f52151ebef6c7334fad080c5704d77216b732', 90000n * 10n ** 18n],
    ]);
  });

  it('runs London rules from genesis with a zero genesis base fee and no code size limit', () => {
    const common = createCommon(spec);
    expect(common.hardfork()).toBe('london');
    expect(common.isActivatedEIP(1559)).toBe(true);
    expect(common.isActivatedEIP(2929)).toBe(true);
    expect(common.param('maxCodeSize')).toBe(2147483647n);
    const f = genesisHeaderFields(spec);
    expect(f.baseFeePerGas).toBe(0n);
    expect(bytesToHex(f.nonce)).toBe('0x0000000000000042');
    expect(f.withdrawalsRoot).toBeUndefined();
  });
});

describe('genesis errors name the file and the problem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'alder-genesis-'));
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('missing file', () => {
    const path = join(dir, 'nope.json');
    expect(() => loadGenesisFile(path)).toThrow(new GenesisError(`Genesis file ${path} not found`));
  });

  it('malformed JSON', () => {
    const path = write('bad.json', '{"config": {');
    expect(() => loadGenesisFile(path)).toThrow(/^Genesis file .*bad\.json is not valid JSON \(/);
  });

  it('bad balance', () => {
    const path = write(
      'balance.json',
      JSON.stringify({
        config: { chainId: 1 },
        gasLimit: '0x1',
        difficulty: '0x1',
        alloc: { ['11'.repeat(20)]: { balance: 'lots' } },
      }),
    );
    expect(() => loadGenesisFile(path)).toThrow(
      `Genesis file ${path} has an invalid alloc.${'11'.repeat(20)}.balance: 'lots' is not a non-negative integer (hex or decimal)`,
    );
  });

  it('bad address, missing fields, fork order', () => {
    expect(() =>
      parseGenesis({ config: { chainId: 1 }, gasLimit: '0x1', difficulty: '0x1', alloc: { '0x12': {} } }),
    ).toThrow(/alloc key '0x12'.*20-byte hex address/);
    expect(() => parseGenesis({ config: { chainId: 1 }, difficulty: '0x1' })).toThrow(
      /missing the required field 'gasLimit'/,
    );
    expect(() => parseGenesis({ config: {}, gasLimit: '0x1', difficulty: '0x1' })).toThrow(/config\.chainId/);
    expect(() =>
      parseGenesis({
        config: { chainId: 1, berlinBlock: 10, londonBlock: 5 },
        gasLimit: '0x1',
        difficulty: '0x1',
      }),
    ).toThrow(/schedules london at block 5, before berlin at block 10/);
  });
});
