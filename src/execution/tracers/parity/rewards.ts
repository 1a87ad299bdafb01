/**
 * Reward traces of a block, as Besu lists them after the block's transaction traces: the block
 * reward to the block's author first (the base reward plus 1/32 of it per included uncle), then one
 * `uncle` reward per ommer ((8 + ommer number − block number) / 8 of the base reward) to the ommer's
 * author. Emitted on every chain, with the engine's reward (0 where it pays none).
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { paramsVM } from '@ethereumjs/vm';
import type { ConsensusRules } from '../../consensusRules.js';
import { type FlatTraceJson, quantityHex } from './flat.js';

export function rewardTraces(block: Block, rules: ConsensusRules): FlatTraceJson[] {
  const header = block.header;
  const base = baseReward(block, rules);
  const hash = bytesToHex(block.hash());
  const number = Number(header.number);
  const uncles = block.uncleHeaders;
  const reward = (author: string, rewardType: string, value: bigint): FlatTraceJson => ({
    action: { author, rewardType, value: quantityHex(value) },
    blockHash: hash,
    blockNumber: number,
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: 'reward',
  });
  const out = [reward(rules.author(header).toString(), 'block', base + (base / 32n) * BigInt(uncles.length))];
  for (const uncle of uncles) {
    const distance = header.number - uncle.number;
    out.push(reward(rules.author(uncle).toString(), 'uncle', base - (base * distance) / 8n));
  }
  return out;
}

/**
 * The engine's reward for `block`. The reward is a parameter of the VM's set, which a block read from
 * the store may not carry yet: the rule is asked on a view of the header whose Common has it.
 */
function baseReward(block: Block, rules: ConsensusRules): bigint {
  const header = block.header;
  try {
    const common = header.common.copy();
    common.updateParams(paramsVM);
    return rules.blockReward(Object.create(header, { common: { value: common } }) as BlockHeader);
  } catch {
    // A fork with no reward parameter pays none.
    return 0n;
  }
}
