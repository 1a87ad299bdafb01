/**
 * The `blockchain` the EVM asks for BLOCKHASH: the ancestors of `tip`, the header of the block being
 * executed (the importer moves it from block to block; a call or simulation fixes it).
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { ChainStore } from './chainStore.js';

export class AncestorHashes {
  constructor(
    private readonly chain: ChainStore,
    public tip?: BlockHeader,
  ) {}

  async getBlock(number: number): Promise<{ hash(): Uint8Array }> {
    if (!this.tip) throw new Error('no block context');
    const hash = this.chain.ancestorHash(this.tip, BigInt(number));
    if (!hash) throw new Error(`unknown ancestor ${number}`);
    return { hash: () => hash };
  }

  async putBlock(): Promise<void> {}

  shallowCopy(): this {
    return this;
  }
}
