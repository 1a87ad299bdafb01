/**
 * clique_getSignerMetrics: blocks sealed per signer over [from, to) — `to` exclusive as in Besu,
 * defaulting to the last 100 blocks before the head — plus the signers after the range's last block
 * with zero counts. The genesis block's proposer is the zero address.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { hexToBytes } from '@ethereumjs/util';
import { hashMapOrder, javaBytesHash } from '../../../util/javaOrder.js';
import { INTERNAL_ERROR, INVALID_BLOCK_NUMBER_PARAMS, RpcError } from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { type BlockParam, blockNumberParam } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, optional } from '../define.js';
import { requireClique } from './signers.js';

const DEFAULT_RANGE = 100n;

interface SignerMetric {
  address: string;
  proposedBlockCount: string;
  lastProposedBlockNumber: string;
}

function blockNumberOf(services: Services, p: Exclude<BlockParam, { kind: 'hash' }>): bigint {
  if (p.kind === 'number') return p.number;
  if (p.tag === 'earliest') return 0n;
  if (p.tag === 'latest' || p.tag === 'pending') return services.chain.head().number;
  // Besu has no rule for safe/finalized here and fails the request.
  throw new RpcError(INTERNAL_ERROR);
}

export const cliqueGetSignerMetrics = defineMethod({
  name: 'clique_getSignerMetrics',
  group: 'CLIQUE',
  params: [
    optional(blockNumberParam, INVALID_BLOCK_NUMBER_PARAMS),
    optional(blockNumberParam, INVALID_BLOCK_NUMBER_PARAMS),
  ],
  requires: ({ services }) => requireClique(services),
  handler([fromParam, toParam], { services }) {
    const clique = requireClique(services);
    return signerMetrics(
      services,
      fromParam,
      toParam,
      (header) => clique.proposerOf(header),
      (header) => clique.signersAfter(header),
    );
  },
});

/**
 * Blocks proposed per address over [from, to) plus, with zero counts, the validators (signers) after
 * the range's last block, in the order Besu's HashMap of addresses gives (shared by clique_, ibft_ and
 * qbft_getSignerMetrics).
 */
export async function signerMetrics(
  services: Services,
  fromParam: Exclude<BlockParam, { kind: 'hash' }> | undefined,
  toParam: Exclude<BlockParam, { kind: 'hash' }> | undefined,
  proposerOf: (header: BlockHeader) => string,
  validatorsAfter: (header: BlockHeader) => readonly string[] | Promise<readonly string[]>,
): Promise<SignerMetric[]> {
  const chain = services.chain;
  const head = chain.head().number;
  const from =
    fromParam === undefined
      ? head > DEFAULT_RANGE
        ? head - DEFAULT_RANGE
        : 0n
      : blockNumberOf(services, fromParam);
  let to = toParam === undefined ? head : blockNumberOf(services, toParam);
  if (to > head) to = head;
  if (from >= to) throw new RpcError(INVALID_BLOCK_NUMBER_PARAMS);

  const counts = new Map<string, { count: bigint; last: bigint }>();
  for (let n = from < 0n ? 0n : from; n < to; n++) {
    const header = chain.getHeaderByNumber(n);
    if (!header) continue;
    const proposer = proposerOf(header);
    const m = counts.get(proposer) ?? { count: 0n, last: 0n };
    m.count++;
    m.last = n;
    counts.set(proposer, m);
  }
  const last = to - 1n < 0n ? undefined : chain.getHeaderByNumber(to - 1n);
  if (!last) throw new RpcError(INTERNAL_ERROR);
  for (const signer of await validatorsAfter(last)) {
    if (!counts.has(signer)) counts.set(signer, { count: 0n, last: 0n });
  }
  const order = hashMapOrder([...counts.keys()], (a) => javaBytesHash(hexToBytes(a as `0x${string}`)));
  return order.map((address): SignerMetric => {
    const m = counts.get(address) as { count: bigint; last: bigint };
    return { address, proposedBlockCount: quantity(m.count), lastProposedBlockNumber: quantity(m.last) };
  });
}
