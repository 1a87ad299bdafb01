/**
 * The consensus factory: which engine a genesis gets, and the refusal — at start, naming the genesis
 * key — of what Alder does not run (a BFT genesis without validators, a BFT chain moving to proof of
 * stake, block production across the merge).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/chain/chainStore.js';
import { createCommon, type GenesisSpec, loadGenesisFile, parseGenesis } from '../../src/config/genesis.js';
import { genesisExtraData } from '../../src/consensus/bft/extraData.js';
import { UnsupportedConsensusError } from '../../src/consensus/errors.js';
import { createConsensusEngine, mergeConfigKey } from '../../src/consensus/factory.js';
import { customCrypto } from '../../src/crypto/index.js';
import { Database } from '../../src/db/database.js';
import { cliqueGenesis } from '../clique/helpers.js';
import { HIVE_CHAIN, RPC_COMPAT_CHAIN } from '../helpers/conformance.js';
import { removeDir, runCliStatus, tempDir } from '../helpers/node.js';

const SIGNER = '0x627306090abab3a6e1400e9345bc60c78a8bef57';

function bftGenesis(key: 'ibft2' | 'qbft'): Record<string, unknown> {
  return {
    config: { chainId: 1337, londonBlock: 0, [key]: { blockperiodseconds: 2, epochlength: 30000 } },
    gasLimit: '0x1fffffffffffff',
    difficulty: '0x1',
    extraData: '0x',
    alloc: {},
  };
}

describe('consensus factory', () => {
  let dir: string;
  let db: Database;

  beforeAll(() => {
    dir = tempDir();
    db = Database.open(join(dir, 'database'));
  });
  afterAll(async () => {
    await db?.close();
    removeDir(dir);
  });

  function engineFor(spec: GenesisSpec) {
    const chain = new ChainStore(db, createCommon(spec, { customCrypto: customCrypto() }));
    return createConsensusEngine(spec, { chain, dataPath: dir, customCrypto: customCrypto() });
  }

  it('picks Ethash for a proof-of-work genesis and Clique for config.clique', () => {
    const ethash = engineFor(
      parseGenesis({
        config: { chainId: 5, londonBlock: 0, ethash: {} },
        gasLimit: '0x1000000',
        difficulty: '0x1',
        alloc: {},
      }),
    );
    expect(ethash.name).toBe('ethash');
    expect(ethash.forkChoice).toBe('totalDifficulty');
    expect(ethash.apis.clique).toBeUndefined();
    const clique = engineFor(parseGenesis(cliqueGenesis([SIGNER])));
    expect(clique.name).toBe('clique');
    expect(clique.producesUnasked).toBe(true);
    expect(clique.apis.clique).toBeDefined();
  });

  it('wraps the pre-merge engine for a genesis that configures the merge', () => {
    const compat = loadGenesisFile(RPC_COMPAT_CHAIN.genesis);
    expect(mergeConfigKey(compat)).toBe('config.terminalTotalDifficulty');
    const merge = engineFor(compat);
    expect(merge.name).toBe('merge(ethash)');
    expect(merge.forkChoice).toBe('external');
    // Forks by timestamp exist only after the merge: the Besu hive genesis names no TTD.
    expect(mergeConfigKey(loadGenesisFile(HIVE_CHAIN.genesis))).toBe('config.shanghaiTime');
  });

  it('picks IBFT 2.0 and QBFT for config.ibft2 and config.qbft', () => {
    const extra = (variant: 'ibft2' | 'qbft') => bytesToHex(genesisExtraData(variant, [SIGNER]));
    const ibft = engineFor(parseGenesis({ ...bftGenesis('ibft2'), extraData: extra('ibft2') }));
    expect(ibft.name).toBe('ibft2');
    expect(ibft.forkChoice).toBe('finality');
    expect(ibft.apis.bft?.variant).toBe('ibft2');
    const qbft = engineFor(parseGenesis({ ...bftGenesis('qbft'), extraData: extra('qbft') }));
    expect(qbft.name).toBe('qbft');
    expect(qbft.apis.bft?.requestTimeoutSeconds).toBe(1);
  });

  it('refuses a BFT genesis whose extraData names no validators, and one that moves to proof of stake', () => {
    expect(() => engineFor(parseGenesis(bftGenesis('qbft')))).toThrow(
      'Genesis extraData is not a valid BFT structure',
    );
    const ttd = { ...bftGenesis('ibft2'), extraData: bytesToHex(genesisExtraData('ibft2', [SIGNER])) };
    (ttd.config as Record<string, unknown>).terminalTotalDifficulty = 10;
    expect(() => engineFor(parseGenesis(ttd))).toThrow(
      new UnsupportedConsensusError(
        'config.terminalTotalDifficulty',
        'a IBFT 2.0 chain cannot move to proof of stake here',
      ),
    );
  });
});

describe('alder refuses a consensus it does not run', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
  });
  afterAll(() => removeDir(dir));

  it('refuses to start a node on a QBFT genesis without validators', async () => {
    const file = join(dir, 'qbft.json');
    writeFileSync(file, JSON.stringify(bftGenesis('qbft')));
    const run = await runCliStatus([`--genesis-file=${file}`, `--data-path=${join(dir, 'q1')}`]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Genesis extraData is not a valid BFT structure');
  });

  it('refuses block production across the merge (--miner-enabled on a merge genesis)', async () => {
    const run = await runCliStatus([
      `--genesis-file=${RPC_COMPAT_CHAIN.genesis}`,
      `--data-path=${join(dir, 'm1')}`,
      '--miner-enabled',
      `--miner-coinbase=${SIGNER}`,
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      'Genesis config.terminalTotalDifficulty: block production across the merge needs the engine API, which is not available yet (--miner-enabled)',
    );
  });
});
