/**
 * Decodes blocks that arrive for import (block files, peers, test fixtures) with the same checks as
 * the library's `createBlockFromRLP`, but with the transactions of every block sharing one Common per
 * hardfork: each transaction otherwise copies the header's Common and re-merges its parameter tables,
 * measured as most of the cost of decoding a block (~0.2 ms a transaction).
 */
import { Block, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx';
import { createWithdrawal } from '@ethereumjs/util';
import { shareCommon } from '../util/sharedCommon.js';

type Values = Uint8Array | Values[];
type WithdrawalBytes = [Uint8Array, Uint8Array, Uint8Array, Uint8Array];

export class BlockDecoder {
  /** The transactions' Common per hardfork (shared, never copied; fixed at its hardfork). */
  private readonly txCommons = new Map<string, Common>();

  constructor(private readonly common: Common) {}

  /** A block from its RLP; throws on anything the library's decoder refuses. */
  fromRLP(serialized: Uint8Array): Block {
    const common = this.common;
    if (common.isActivatedEIP(7934)) {
      const max = common.param('maxRlpBlockSize');
      if (serialized.length > max) throw new Error(`Block size exceeds limit: ${serialized.length} > ${max}`);
    }
    const values = RLP.decode(serialized) as Values;
    if (!Array.isArray(values)) throw new Error('Invalid serialized block input. Must be array');
    return this.fromValues(values);
  }

  /** A block from its decoded RLP list: header, transactions, uncles and (from Shanghai) withdrawals. */
  fromValues(values: Values[]): Block {
    if (values.length > 5)
      throw new Error(`invalid  More values=${values.length} than expected were received (at most 5)`);
    const opts = { common: this.common, setHardfork: true };
    const [headerData, txsData, unclesData, ...tail] = values;
    const header = createBlockHeaderFromBytesArray(headerData as Uint8Array[], opts);
    const withdrawalsData = header.common.isActivatedEIP(4895) ? tail[0] : undefined;
    if (header.common.isActivatedEIP(4895) && !Array.isArray(withdrawalsData))
      throw new Error(
        'Invalid serialized block input: EIP-4895 is active, and no withdrawals were provided as array',
      );
    const txCommon = this.txCommon(header.common);
    const txs = (txsData ?? []) as Values[];
    const transactions: TypedTransaction[] = new Array(txs.length);
    for (let i = 0; i < txs.length; i++)
      transactions[i] = createTxFromBlockBodyData(txs[i] as never, { ...opts, common: txCommon });
    const uncleOpts = { ...opts, common: header.common };
    const uncleHeaders = ((unclesData ?? []) as Uint8Array[][]).map((u) =>
      createBlockHeaderFromBytesArray(u, uncleOpts),
    );
    const withdrawals = (withdrawalsData as WithdrawalBytes[] | undefined)?.map(
      ([index, validatorIndex, address, amount]) =>
        createWithdrawal({ index, validatorIndex, address, amount }),
    );
    return new Block(header, transactions, uncleHeaders, withdrawals, opts);
  }

  private txCommon(headerCommon: Common): Common {
    const hardfork = headerCommon.hardfork();
    let common = this.txCommons.get(hardfork);
    if (common === undefined) {
      common = shareCommon(headerCommon.copy(), { fixHardfork: true });
      this.txCommons.set(hardfork, common);
    }
    return common;
  }
}
