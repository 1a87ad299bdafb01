/**
 * BFT genesis options: Besu's defaults, the keys Besu reads (case-insensitively, `x`-prefixed
 * experimental names included), transitions applied in block order, the refusals of malformed
 * transitions, epochs counted from QBFT's start block, and the fork points of a BFT chain that
 * schedules Shanghai by time (no merge).
 */
import { describe, expect, it } from 'vitest';
import { forkPoints } from '../../src/chain/forkId.js';
import { type GenesisSpec, isForkActive, parseGenesis } from '../../src/config/genesis.js';
import { BftConfigSchedule } from '../../src/consensus/bft/config.js';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';

function spec(variant: 'ibft2' | 'qbft', options: object, config: object = {}): GenesisSpec {
  return parseGenesis({
    config: { chainId: 5, londonBlock: 0, [variant]: options, ...config },
    gasLimit: '0x1000000',
    difficulty: '0x1',
    alloc: {},
  });
}

describe('BFT genesis options', () => {
  it("takes Besu's defaults", () => {
    const bft = spec('qbft', {}).config.qbft;
    expect(bft).toMatchObject({
      blockPeriodSeconds: 1,
      emptyBlockPeriodSeconds: 0,
      epochLength: 30000n,
      requestTimeoutSeconds: 1,
      blockReward: 0n,
      miningBeneficiary: undefined,
      validatorContractAddress: undefined,
      messageQueueLimit: 1000,
      futureMessagesLimit: 1000,
      futureMessagesMaxDistance: 10,
      gossipedHistoryLimit: 1000,
      duplicateMessageLimit: 100,
      transitions: [],
    });
  });

  it('reads every key, case-insensitively, and applies transitions in block order', () => {
    const s = spec(
      'qbft',
      {
        BlockPeriodSeconds: 5,
        xemptyblockperiodseconds: 30,
        EpochLength: 100,
        RequestTimeoutSeconds: 10,
        BlockReward: '0x10',
        MiningBeneficiary: A,
        ValidatorContractAddress: '0x000000000000000000000000000000000000ABCD',
        startBlock: 11,
        messagequeuelimit: 7,
      },
      {
        transitions: {
          qbft: [
            { block: 30, validatorselectionmode: 'blockheader', validators: [B, A] },
            { block: 20, blockperiodseconds: 2, miningbeneficiary: '', blockreward: '5' },
          ],
        },
      },
    );
    const bft = s.config.qbft;
    expect(bft?.emptyBlockPeriodSeconds).toBe(30);
    expect(bft?.messageQueueLimit).toBe(7);
    const schedule = new BftConfigSchedule('qbft', bft as NonNullable<typeof bft>);
    expect(schedule.at(0n)).toMatchObject({
      blockPeriodSeconds: 5,
      blockReward: 16n,
      miningBeneficiary: A,
      validatorSelection: { mode: 'contract', contractAddress: '0x000000000000000000000000000000000000abcd' },
    });
    expect(schedule.at(20n)).toMatchObject({
      blockPeriodSeconds: 2,
      blockReward: 5n,
      miningBeneficiary: undefined,
    });
    expect(schedule.at(29n).validatorSelection.mode).toBe('contract');
    expect(schedule.at(30n)).toMatchObject({
      blockPeriodSeconds: 2,
      validatorSelection: { mode: 'blockheader' },
    });
    expect(schedule.validatorOverride(30n)).toEqual([A, B]);
    // Epochs count from the block before the start block.
    expect([10n, 110n, 100n, 9n].map((n) => schedule.isEpochBlock(n))).toEqual([true, true, false, false]);
  });

  it('refuses malformed transitions and options', () => {
    const bad: Array<[object, object, string]> = [
      [
        {},
        { transitions: { qbft: [{ block: 0, blockperiodseconds: 2 }] } },
        'cannot change the genesis block',
      ],
      [{}, { transitions: { qbft: [{ block: 3 }, { block: 3 }] } }, 'two transitions at block 3'],
      [
        {},
        { transitions: { qbft: [{ block: 3, validatorselectionmode: 'blockheader' }] } },
        'needs a validators list',
      ],
      [
        {},
        { transitions: { qbft: [{ block: 3, validatorselectionmode: 'contract' }] } },
        'needs a validatorcontractaddress',
      ],
      [
        {},
        { transitions: { qbft: [{ block: 3, validatorselectionmode: 'vote' }] } },
        'must be "blockheader" or "contract"',
      ],
      [{}, { transitions: { qbft: {} } }, 'must be an array'],
      [{ blockperiodseconds: 0 }, {}, 'blockperiodseconds must be greater than 0'],
      [{ epochlength: 0 }, {}, 'epochlength must be greater than 0'],
      [{ miningbeneficiary: '0x12' }, {}, 'miningbeneficiary'],
      [
        { xblockperiodmilliseconds: 500 },
        {},
        'xblockperiodmilliseconds (a block period in milliseconds) is not supported',
      ],
    ];
    for (const [options, config, message] of bad)
      expect(() => spec('qbft', options, config)).toThrow(message);
  });

  it('keeps a BFT chain that schedules Shanghai by time out of the merge', () => {
    const s = spec('qbft', {}, { shanghaiTime: 1000 });
    expect(s.config.forks.shanghai?.timestamp).toBe(1000n);
    // PREVRANDAO arrives with Shanghai, not at genesis; the fork points are Shanghai's time alone.
    expect(isForkActive(s, 'paris', 1n, 999n)).toBe(false);
    expect(isForkActive(s, 'paris', 1n, 1000n)).toBe(true);
    expect(forkPoints(s)).toEqual({ blocks: [], timestamps: [1000n] });
  });
});
