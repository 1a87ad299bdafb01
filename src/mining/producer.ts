/**
 * The block production loop shared by every engine: wait until the engine says the next block is due,
 * build on the head, seal, commit through the importer. A new head (imported or our own) abandons
 * the attempt in progress; the loop then starts over on the new head. Production pauses while the
 * node is syncing.
 */
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import type { BlockImporter } from '../execution/importer.js';
import { type BlockBuilder, BuildAbortedError } from './builder.js';
import type { SealingEngine } from './engine.js';

export interface ProducerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ProducerOptions {
  /** True while the node synchronizes from peers; no blocks are produced then. */
  isSyncing?: () => boolean;
  now?: () => number;
}

/** How long to wait before retrying after a failed attempt or while syncing. */
const RETRY_MS = 1000;

export class BlockProducer {
  private running = false;
  private loop: Promise<void> | undefined;
  private attempt: AbortController | undefined;
  private wake: (() => void) | undefined;
  private readonly now: () => number;
  private readonly onHead = (_e: NewHeadEvent) => {
    this.attempt?.abort();
    this.wake?.();
  };

  constructor(
    private readonly chain: ChainStore,
    private readonly importer: BlockImporter,
    private readonly builder: BlockBuilder,
    readonly engine: SealingEngine,
    private readonly log: ProducerLog,
    private readonly opts: ProducerOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.chain.on('newHead', this.onHead);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.chain.off('newHead', this.onHead);
    this.attempt?.abort();
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** Sleeps `ms`, cut short by a new head or stop. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.opts.isSyncing?.()) {
        await this.sleep(RETRY_MS);
        continue;
      }
      const parent = this.chain.headHeader();
      const delay = this.engine.nextBlockDelay(parent, this.now());
      if (delay === undefined) {
        await this.sleep(RETRY_MS);
        continue;
      }
      if (delay > 0) {
        await this.sleep(delay);
        continue;
      }
      const attempt = new AbortController();
      this.attempt = attempt;
      try {
        const timestamp = this.engine.childTimestamp(parent, this.now());
        const built = await this.builder.build(parent, this.engine, timestamp, attempt.signal);
        if (attempt.signal.aborted || !this.running) continue;
        const sealed = await this.engine.seal(built.block, attempt.signal);
        if (!sealed || !this.running) continue;
        await this.importer.commitBuilt(sealed, built.execution);
        this.log.info(
          {
            number: sealed.header.number.toString(),
            hash: `0x${Buffer.from(sealed.hash()).toString('hex')}`,
            txs: built.txCount,
            gasUsed: sealed.header.gasUsed.toString(),
          },
          'Produced block',
        );
      } catch (err) {
        if (err instanceof BuildAbortedError) continue;
        this.log.warn({ err }, 'Block production failed');
        await this.sleep(RETRY_MS);
      } finally {
        if (this.attempt === attempt) this.attempt = undefined;
      }
    }
  }
}
