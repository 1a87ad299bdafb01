/**
 * The execution side of the engine API: what a consensus client asks of Alder after the merge, as Besu's
 * merge coordinator answers it. `newPayload` checks a payload against its fork's rules and executes it
 * (the block is stored; the head does not move); `forkchoiceUpdated` makes a stored block the head —
 * reorganising to any stored branch — records safe and finalized, and starts building a payload from
 * the pool when payload attributes come with it; `getPayload` hands the built block over. A payload
 * whose parent is not stored waits (SYNCING) and is imported once its parent arrives.
 *
 * The adapters (`rpc/methods/engine/`) decode parameters into the types below and format the answers;
 * everything a version of a method checks lives here, keyed by that version.
 */
import {
  Block,
  type BlockHeader,
  createBlockHeader,
  genRequestsRoot,
  genTransactionsTrieRoot,
  genWithdrawalsTrieRoot,
} from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { Blob4844Tx, createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx';
import {
  type Address,
  bigIntToBytes,
  bytesToHex,
  CLRequest,
  type CLRequestType,
  concatBytes,
  KECCAK256_RLP,
  KECCAK256_RLP_ARRAY,
  type Withdrawal,
} from '@ethereumjs/util';
import { bytesEqual, type ChainStore } from '../../chain/chainStore.js';
import { InvalidBlockError } from '../../chain/errors.js';
import type { ForkName, GenesisSpec } from '../../config/genesis.js';
import { forkSchedule } from '../../config/genesis.js';
import { keccak256, sha256 } from '../../crypto/index.js';
import type { BlockImporter, BuiltExecution } from '../../execution/importer.js';
import { logger } from '../../log.js';
import { type BlockBuilder, BuildTransactionError } from '../../mining/builder.js';
import type { SealingEngine } from '../../mining/engine.js';
import type { PooledTx, TxPool } from '../../txpool/pool.js';
import { Lru } from '../../util/lru.js';
import { EngineApiError } from './errors.js';

export type PayloadStatusKind = 'VALID' | 'INVALID' | 'SYNCING' | 'ACCEPTED' | 'INVALID_BLOCK_HASH';

export interface PayloadStatus {
  status: PayloadStatusKind;
  latestValidHash: Uint8Array | null;
  validationError: string | null;
}

/** An execution payload as the consensus client sends it, decoded (fields absent where not sent). */
export interface ExecutionPayloadInput {
  parentHash: Uint8Array;
  feeRecipient: Address;
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  prevRandao: Uint8Array;
  blockNumber: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  /** Null when the client sent null (answered INVALID, as Besu does). */
  extraData: Uint8Array | null;
  baseFeePerGas: bigint;
  blockHash: Uint8Array;
  transactions: Uint8Array[];
  withdrawals?: Withdrawal[];
  blobGasUsed?: bigint;
  excessBlobGas?: bigint;
}

export interface ForkchoiceState {
  headBlockHash: Uint8Array;
  safeBlockHash: Uint8Array;
  finalizedBlockHash: Uint8Array;
}

export interface PayloadAttributes {
  timestamp: bigint;
  prevRandao: Uint8Array;
  suggestedFeeRecipient: Address;
  withdrawals?: Withdrawal[];
  parentBeaconBlockRoot?: Uint8Array;
}

export interface ForkchoiceResult {
  payloadStatus: PayloadStatus;
  payloadId: Uint8Array | null;
}

export interface BlobsBundle {
  commitments: Uint8Array[];
  proofs: Uint8Array[];
  blobs: Uint8Array[];
}

/** A block built for the consensus client, with what getPayload answers beside it. */
export interface BuiltPayload {
  block: Block;
  blockValue: bigint;
  blobsBundle: BlobsBundle;
  /** EIP-7685 requests with their type byte, empty ones left out (Prague on). */
  executionRequests?: Uint8Array[];
}

export interface PayloadBody {
  transactions: Uint8Array[];
  withdrawals: Withdrawal[] | null;
}

export interface EngineServiceDeps {
  genesis: GenesisSpec;
  chain: ChainStore;
  importer: BlockImporter;
  builder: BlockBuilder;
  pool: TxPool | undefined;
  /** Extra data of built payloads (`--miner-extra-data`). */
  extraData(): Uint8Array;
  /** Called when a consensus client first drives the chain (the head then moves only by fork choice). */
  onDriven?(): void;
  /** Whether the node's P2P full sync is running (payloads and fork choices then answer SYNCING). */
  isSyncing?(): boolean;
}

/** Milestones Besu's engine methods check payload timestamps against. */
const FORKS_BY_TIME: readonly ForkName[] = ['shanghai', 'cancun', 'prague', 'osaka', 'amsterdam'];
const ZERO32 = new Uint8Array(32);
/** Payloads whose parent is unknown, kept until it arrives. */
const MAX_PENDING_PAYLOADS = 128;
/** Built payloads kept for getPayload. */
const MAX_BUILT_PAYLOADS = 32;
const MAX_BODIES_REQUEST = 1024;
const MAX_BLOBS_REQUEST = 128;
/** Cell proofs per blob in Osaka's blob transaction network form. */
const CELLS_PER_EXT_BLOB = 128;

const log = logger('engine');

export class EngineService {
  private readonly milestones = new Map<ForkName, bigint>();
  private readonly built = new Lru<string, Promise<BuiltPayload>>(MAX_BUILT_PAYLOADS);
  /** Hash of a block found invalid → its latest valid ancestor. */
  private readonly badBlocks = new Lru<string, Uint8Array>(1024);
  /** Payloads waiting for their parent, by parent hash. */
  private readonly waiting = new Map<string, Block[]>();
  private waitingCount = 0;
  private driven = false;

  constructor(private readonly deps: EngineServiceDeps) {
    for (const fork of forkSchedule(deps.genesis)) {
      if (!FORKS_BY_TIME.includes(fork.name)) continue;
      if (fork.timestamp !== undefined) this.milestones.set(fork.name, fork.timestamp);
      else if (fork.block !== null) this.milestones.set(fork.name, 0n);
    }
  }

  /** The timestamp a fork starts at; undefined when the chain does not schedule it. */
  milestone(fork: ForkName): bigint | undefined {
    return this.milestones.get(fork);
  }

  isActive(fork: ForkName, timestamp: bigint): boolean {
    const at = this.milestones.get(fork);
    return at !== undefined && timestamp >= at;
  }

  // ------------------------------------------------------------------ fork checks (per version)

  /** Besu's check for methods that serve forks `[first, firstUnsupported)`. */
  checkForkRange(first: ForkName, firstUnsupported: ForkName | undefined, timestamp: bigint): void {
    const start = this.milestones.get(first);
    if (start === undefined)
      throw new EngineApiError(
        'UNSUPPORTED_FORK',
        `Configuration error, no schedule for ${first.toUpperCase()} fork set`,
      );
    if (timestamp < start)
      throw new EngineApiError(
        'UNSUPPORTED_FORK',
        `${first.toUpperCase()} configured to start at timestamp: ${start}`,
      );
    const end = firstUnsupported ? this.milestones.get(firstUnsupported) : undefined;
    if (end !== undefined && timestamp >= end)
      throw new EngineApiError(
        'UNSUPPORTED_FORK',
        `block timestamp ${timestamp} is after the first unsupported milestone: ${(firstUnsupported as string).toUpperCase()} at timestamp ${end}`,
      );
  }

  /** V1/V2 methods: refused from Cancun on. */
  checkBeforeCancun(timestamp: bigint): void {
    if (this.isActive('cancun', timestamp)) throw new EngineApiError('UNSUPPORTED_FORK');
  }

  // ------------------------------------------------------------------ newPayload

  /**
   * engine_newPayloadV1–V4 once the version's parameter and fork checks passed (`version` decides the
   * status of a block hash mismatch: INVALID_BLOCK_HASH for V1). Blob checks apply when
   * `versionedHashes` is given (V3 on).
   */
  async newPayload(
    version: number,
    payload: ExecutionPayloadInput,
    versionedHashes: Uint8Array[] | undefined,
    parentBeaconBlockRoot: Uint8Array | undefined,
    requests: Uint8Array[] | undefined,
  ): Promise<PayloadStatus> {
    this.markDriven();
    const { chain } = this.deps;
    const parent = chain.getHeader(payload.parentHash);
    const latestValid = () => this.latestValidAncestor(payload.parentHash);
    // Withdrawals: required from Shanghai on, refused before.
    const shanghai = this.isActive('shanghai', payload.timestamp);
    if (shanghai !== (payload.withdrawals !== undefined)) throw new EngineApiError('INVALID_WITHDRAWALS');

    let clRequests: CLRequest<CLRequestType>[] | undefined;
    if (requests !== undefined) {
      clRequests = [];
      let lastType = -1;
      for (const r of requests) {
        const type = r[0];
        if (r.length < 2 || type === undefined || type <= lastType || type > 2)
          return invalid(latestValid(), 'Invalid execution requests');
        lastType = type;
        clRequests.push(new CLRequest(type as CLRequestType, r.subarray(1)));
      }
    }

    if (payload.extraData === null) return invalid(latestValid(), 'Field extraData must not be null');
    const common = this.commonAt(payload.blockNumber, payload.timestamp);
    let transactions: TypedTransaction[];
    try {
      transactions = payload.transactions.map((raw) => decodeTransaction(raw, common));
    } catch {
      return invalid(latestValid(), 'Failed to decode transactions from block parameter');
    }

    let block: Block;
    try {
      const opts = { common, skipConsensusFormatValidation: true };
      const header = createBlockHeader(
        {
          parentHash: payload.parentHash,
          uncleHash: KECCAK256_RLP_ARRAY,
          coinbase: payload.feeRecipient,
          stateRoot: payload.stateRoot,
          transactionsTrie: await genTransactionsTrieRoot(transactions, new MerklePatriciaTrie({ common })),
          receiptTrie: payload.receiptsRoot,
          logsBloom: payload.logsBloom,
          difficulty: 0n,
          number: payload.blockNumber,
          gasLimit: payload.gasLimit,
          gasUsed: payload.gasUsed,
          timestamp: payload.timestamp,
          extraData: payload.extraData,
          mixHash: payload.prevRandao,
          nonce: new Uint8Array(8),
          baseFeePerGas: payload.baseFeePerGas,
          withdrawalsRoot: payload.withdrawals
            ? await genWithdrawalsTrieRoot(payload.withdrawals, new MerklePatriciaTrie({ common }))
            : undefined,
          blobGasUsed: payload.blobGasUsed,
          excessBlobGas: payload.excessBlobGas,
          parentBeaconBlockRoot,
          requestsHash: clRequests ? genRequestsRoot(clRequests, sha256) : undefined,
        },
        opts,
      );
      block = new Block(header, transactions, [], payload.withdrawals, opts);
    } catch (err) {
      return invalid(latestValid(), firstLine(err));
    }
    const hash = block.hash();
    if (!bytesEqual(hash, payload.blockHash)) {
      const message = `Computed block hash ${bytesToHex(hash)} does not match block hash parameter ${bytesToHex(payload.blockHash)}`;
      return {
        status: version === 1 ? 'INVALID_BLOCK_HASH' : 'INVALID',
        latestValidHash: null,
        validationError: message,
      };
    }

    if (versionedHashes !== undefined) {
      const blobError = this.checkBlobs(block, parent, versionedHashes);
      if (blobError !== undefined) return invalid(latestValid(), blobError);
    }

    if (chain.hasBlock(hash)) return valid(hash);
    const bad = this.badBlocks.get(bytesToHex(hash));
    if (bad !== undefined) return invalid(bad, 'Block already present in bad block manager.');
    if (parent && parent.timestamp >= payload.timestamp)
      return invalid(latestValid(), 'block timestamp not greater than parent');
    if (!parent) {
      this.keepWaiting(block);
      return syncing();
    }
    // While the node syncs over devp2p its head is not the consensus client's: nothing is executed.
    if (this.deps.isSyncing?.()) return syncing();
    if (!this.descendsFromTerminal(block.header)) {
      this.badBlocks.set(bytesToHex(hash), ZERO32);
      return invalid(ZERO32, `${bytesToHex(hash)} did not descend from terminal block`);
    }
    const badParent = this.badBlocks.get(bytesToHex(payload.parentHash));
    if (badParent !== undefined) {
      this.badBlocks.set(bytesToHex(hash), badParent);
      return invalid(badParent, 'Parent is an invalid block');
    }
    return this.execute(block);
  }

  /**
   * newPayload of a block the node holds as an object (the pos-dev driver's own payload): the block
   * taken apart into the fields a consensus client sends, then the version of its fork.
   */
  newPayloadBlock(block: Block, requests: Uint8Array[] | undefined): Promise<PayloadStatus> {
    const h = block.header;
    const ts = h.timestamp;
    const version = this.isActive('prague', ts)
      ? 4
      : this.isActive('cancun', ts)
        ? 3
        : this.isActive('shanghai', ts)
          ? 2
          : 1;
    const versionedHashes =
      version >= 3
        ? block.transactions.flatMap((tx) =>
            tx instanceof Blob4844Tx ? tx.blobVersionedHashes.map(toBytes) : [],
          )
        : undefined;
    return this.newPayload(
      version,
      {
        parentHash: h.parentHash,
        feeRecipient: h.coinbase,
        stateRoot: h.stateRoot,
        receiptsRoot: h.receiptTrie,
        logsBloom: h.logsBloom,
        prevRandao: h.mixHash,
        blockNumber: h.number,
        gasLimit: h.gasLimit,
        gasUsed: h.gasUsed,
        timestamp: ts,
        extraData: h.extraData,
        baseFeePerGas: h.baseFeePerGas ?? 0n,
        blockHash: block.hash(),
        transactions: block.transactions.map((tx) => tx.serialize()),
        withdrawals: block.withdrawals,
        blobGasUsed: h.blobGasUsed,
        excessBlobGas: h.excessBlobGas,
      },
      versionedHashes,
      h.parentBeaconBlockRoot,
      version >= 4 ? (requests ?? []) : undefined,
    );
  }

  /** Imports a payload whose parent is stored; then the payloads that waited for it. */
  private async execute(block: Block): Promise<PayloadStatus> {
    const hash = block.hash();
    const stashed = this.executions.get(bytesToHex(hash));
    try {
      // Our own payload coming back: stored from its build, not executed a second time.
      if (stashed) await this.deps.importer.commitBuilt(block, stashed.execution);
      else await this.deps.importer.importBlock(block);
    } catch (err) {
      if (err instanceof InvalidBlockError) {
        const parentHash = block.header.parentHash;
        this.badBlocks.set(bytesToHex(hash), parentHash);
        log.debug({ number: block.header.number.toString(), reason: err.reason }, 'Invalid payload');
        return invalid(parentHash, err.reason);
      }
      throw err;
    }
    await this.importWaitingChildren(hash);
    return valid(hash);
  }

  private keepWaiting(block: Block): void {
    const key = bytesToHex(block.header.parentHash);
    const list = this.waiting.get(key) ?? [];
    if (list.some((b) => bytesEqual(b.hash(), block.hash()))) return;
    if (this.waitingCount >= MAX_PENDING_PAYLOADS) {
      // Drop the oldest parent's waiting payloads to stay bounded.
      const oldest = this.waiting.keys().next().value as string | undefined;
      if (oldest !== undefined) {
        this.waitingCount -= this.waiting.get(oldest)?.length ?? 0;
        this.waiting.delete(oldest);
      }
    }
    list.push(block);
    this.waiting.set(key, list);
    this.waitingCount++;
  }

  private async importWaitingChildren(parentHash: Uint8Array): Promise<void> {
    const queue = [parentHash];
    while (queue.length > 0) {
      const key = bytesToHex(queue.shift() as Uint8Array);
      const children = this.waiting.get(key);
      if (!children) continue;
      this.waiting.delete(key);
      this.waitingCount -= children.length;
      for (const child of children) {
        const status = await this.execute(child);
        if (status.status === 'VALID') queue.push(child.hash());
      }
    }
  }

  /** The hash answered as latestValidHash for a payload on `parentHash`: the parent when it is stored and valid. */
  private latestValidAncestor(parentHash: Uint8Array): Uint8Array | null {
    const bad = this.badBlocks.get(bytesToHex(parentHash));
    if (bad !== undefined) return bad;
    return this.deps.chain.hasBlock(parentHash) ? parentHash : null;
  }

  private checkBlobs(
    block: Block,
    parent: BlockHeader | undefined,
    versionedHashes: Uint8Array[],
  ): string | undefined {
    const common = block.common;
    const fromTxs: Uint8Array[] = [];
    const schedule = common.getBlobGasSchedule?.();
    const maxBlobGas: bigint = schedule?.maxBlobGasPerBlock ?? 0n;
    const perBlob: bigint = common.param('blobGasPerBlob');
    for (const tx of block.transactions) {
      if (!(tx instanceof Blob4844Tx)) continue;
      if (tx.blobVersionedHashes.length === 0) return 'There must be at least one blob';
      const txBlobGas = BigInt(tx.blobVersionedHashes.length) * perBlob;
      if (txBlobGas > maxBlobGas)
        return `Blob transaction ${bytesToHex(tx.hash())} exceeds block blob gas limit: ${txBlobGas} > ${maxBlobGas}`;
      fromTxs.push(...tx.blobVersionedHashes.map(toBytes));
    }
    if (
      fromTxs.length !== versionedHashes.length ||
      fromTxs.some((h, i) => !bytesEqual(h, versionedHashes[i] as Uint8Array))
    )
      return 'Versioned hashes from blob transactions do not match expected values';
    if (parent) {
      const expected = parent.common.isActivatedEIP(4844) ? parent.calcNextExcessBlobGas(common) : 0n;
      const actual = block.header.excessBlobGas ?? 0n;
      if (expected !== actual)
        return `Payload excessBlobGas does not match calculated excessBlobGas. Expected ${expected}, got ${actual}`;
    }
    const used = BigInt(versionedHashes.length) * perBlob;
    if (block.header.blobGasUsed !== undefined && block.header.blobGasUsed !== used)
      return `Payload BlobGasUsed does not match calculated BlobGasUsed. Expected ${used}, got ${block.header.blobGasUsed}`;
    if (used > maxBlobGas) return `Invalid Blob Count: ${versionedHashes.length}`;
    return undefined;
  }

  // ------------------------------------------------------------------ forkchoiceUpdated

  /**
   * engine_forkchoiceUpdatedV1–V3. `checkAttributes` is the version's own check of the payload
   * attributes (beacon root presence, fork range), run where Besu runs it: after the head moved.
   */
  async forkchoiceUpdated(
    state: ForkchoiceState,
    attributes: PayloadAttributes | undefined,
    checkAttributes: (attrs: PayloadAttributes) => void,
  ): Promise<ForkchoiceResult> {
    this.markDriven();
    const { chain } = this.deps;
    const headKey = bytesToHex(state.headBlockHash);
    const bad = this.badBlocks.get(headKey);
    if (bad !== undefined)
      return {
        payloadStatus: {
          status: 'INVALID',
          latestValidHash: bad,
          validationError: `${headKey} is an invalid block`,
        },
        payloadId: null,
      };
    const newHead = chain.getHeader(state.headBlockHash);
    if (!newHead || this.deps.isSyncing?.()) return { payloadStatus: syncing(), payloadId: null };
    if (!this.isValidForkchoiceState(state, newHead)) throw new EngineApiError('INVALID_FORKCHOICE_STATE');
    if (!this.descendsFromTerminal(newHead))
      return {
        payloadStatus: invalid(ZERO32, `${headKey} did not descend from terminal block`),
        payloadId: null,
      };

    const current = chain.head();
    let ignored = false;
    if (newHead.number < current.number && chain.isCanonical(state.headBlockHash, newHead.number)) {
      ignored = true;
      log.debug({ number: newHead.number.toString() }, 'Ignoring update to old head');
    } else {
      const parent = chain.getHeader(newHead.parentHash);
      if (parent && newHead.timestamp <= parent.timestamp)
        return {
          payloadStatus: invalid(newHead.parentHash, 'new head timestamp not greater than parent'),
          payloadId: null,
        };
      await this.deps.importer.setForkchoice(
        state.headBlockHash,
        isZero(state.safeBlockHash) || !chain.hasBlock(state.safeBlockHash) ? undefined : state.safeBlockHash,
        isZero(state.finalizedBlockHash) || !chain.hasBlock(state.finalizedBlockHash)
          ? undefined
          : state.finalizedBlockHash,
      );
    }

    if (attributes) {
      checkAttributes(attributes);
      if (attributes.timestamp <= newHead.timestamp) throw new EngineApiError('INVALID_PAYLOAD_ATTRIBUTES');
      const shanghai = this.isActive('shanghai', attributes.timestamp);
      if (shanghai !== (attributes.withdrawals !== undefined))
        throw new EngineApiError('INVALID_WITHDRAWALS');
    }
    if (ignored) return { payloadStatus: valid(state.headBlockHash), payloadId: null };
    const payloadId = attributes ? this.preparePayload(newHead, attributes) : null;
    return { payloadStatus: valid(state.headBlockHash), payloadId };
  }

  private isValidForkchoiceState(state: ForkchoiceState, head: BlockHeader): boolean {
    const { chain } = this.deps;
    let finalized: BlockHeader | undefined;
    if (!isZero(state.finalizedBlockHash)) {
      finalized = chain.getHeader(state.finalizedBlockHash);
      if (!finalized || !this.isAncestor(finalized, head)) return false;
    }
    if (isZero(state.safeBlockHash)) return isZero(state.finalizedBlockHash);
    const safe = chain.getHeader(state.safeBlockHash);
    if (!safe) return false;
    if (finalized && !this.isAncestor(finalized, safe)) return false;
    return this.isAncestor(safe, head);
  }

  /**
   * Whether `header` is a valid terminal proof-of-work block or lies on a chain that passed one
   * (EIP-3675): a proof-of-work block qualifies only when its total difficulty reaches the terminal
   * total difficulty and its parent's does not (or it is the genesis block reaching it); a
   * proof-of-stake block adds no difficulty, so its chain's total difficulty is that of the last
   * proof-of-work block it descends from and must reach the terminal total difficulty.
   */
  private descendsFromTerminal(header: BlockHeader): boolean {
    const { chain } = this.deps;
    const ttd = this.terminalTotalDifficulty;
    if (header.difficulty === 0n) {
      const parentTd = chain.getTotalDifficulty(header.parentHash);
      // An unknown parent is a payload kept for later: it is checked once imported.
      return parentTd === undefined || parentTd >= ttd;
    }
    const td = chain.getTotalDifficulty(header.hash());
    if (td === undefined || td < ttd) return false;
    if (header.number === 0n) return true;
    const parentTd = chain.getTotalDifficulty(header.parentHash);
    return parentTd !== undefined && parentTd < ttd;
  }

  /** Whether `ancestor` is `descendant` or one of its ancestors. */
  private isAncestor(ancestor: BlockHeader, descendant: BlockHeader): boolean {
    const hash = this.deps.chain.ancestorHash(descendant, ancestor.number);
    return hash !== undefined && bytesEqual(hash, ancestor.hash());
  }

  // ------------------------------------------------------------------ payload building

  /** Starts building a child of `parent`; returns its payload id (the same attributes give the same id). */
  preparePayload(parent: BlockHeader, attrs: PayloadAttributes): Uint8Array {
    const id = payloadIdOf(parent.hash(), attrs);
    const key = bytesToHex(id);
    if (this.built.get(key) === undefined) {
      const building = this.build(parent, attrs);
      // A failure is reported by getPayload; nothing waits on it before.
      building.catch((err) => log.warn({ err: firstLine(err) }, 'Payload building failed'));
      this.built.set(key, building);
    }
    return id;
  }

  /** Builds a block on `parent` with `attrs` (from the pool, or exactly `transactions`). */
  async build(
    parent: BlockHeader,
    attrs: PayloadAttributes,
    transactions?: PooledTx[],
    extraData?: Uint8Array,
  ): Promise<BuiltPayload> {
    const engine: SealingEngine = {
      name: 'merge',
      childHeaderFields: () => ({
        coinbase: attrs.suggestedFeeRecipient,
        difficulty: 0n,
        extraData: extraData ?? this.deps.extraData(),
        nonce: new Uint8Array(8),
        mixHash: attrs.prevRandao,
      }),
      childTimestamp: () => attrs.timestamp,
      nextBlockDelay: () => undefined,
      seal: async (block) => block,
    };
    const built = await this.deps.builder.build(parent, engine, attrs.timestamp, undefined, {
      withdrawals: attrs.withdrawals,
      parentBeaconBlockRoot: attrs.parentBeaconBlockRoot,
      transactions,
    });
    const bundle: BlobsBundle = { commitments: [], proofs: [], blobs: [] };
    for (const entry of built.included) {
      const tx = entry.tx;
      if (!(tx instanceof Blob4844Tx) || !tx.blobs || !tx.kzgCommitments || !tx.kzgProofs) continue;
      bundle.commitments.push(...tx.kzgCommitments.map(toBytes));
      bundle.proofs.push(...tx.kzgProofs.map(toBytes));
      bundle.blobs.push(...tx.blobs.map(toBytes));
    }
    this.stash(built.block, built.execution);
    return {
      block: built.block,
      blockValue: built.blockValue,
      blobsBundle: bundle,
      executionRequests: built.requests?.filter((r) => r.bytes.length > 1).map((r) => r.bytes),
    };
  }

  /** Built blocks whose execution is kept, so that newPayload of our own payload needs no re-run. */
  private readonly executions = new Lru<string, { block: Block; execution: BuiltExecution }>(
    MAX_BUILT_PAYLOADS,
  );

  private stash(block: Block, execution: BuiltExecution): void {
    this.executions.set(bytesToHex(block.hash()), { block, execution });
  }

  /** engine_getPayloadV*: the built payload; `checkFork` is the version's fork range check. */
  async getPayload(payloadId: Uint8Array, checkFork: (timestamp: bigint) => void): Promise<BuiltPayload> {
    const building = this.built.get(bytesToHex(payloadId));
    if (!building) throw new EngineApiError('UNKNOWN_PAYLOAD');
    let payload: BuiltPayload;
    try {
      payload = await building;
    } catch {
      throw new EngineApiError('UNKNOWN_PAYLOAD');
    }
    checkFork(payload.block.header.timestamp);
    return payload;
  }

  /** testing_buildBlockV1: builds (and keeps, unimported) a block on `parentHash`. */
  async buildForTesting(
    parentHash: Uint8Array,
    attrs: PayloadAttributes,
    transactions: TypedTransaction[] | undefined,
    extraData: Uint8Array | undefined,
  ): Promise<BuiltPayload> {
    const parent = this.deps.chain.getHeader(parentHash);
    if (!parent)
      throw new EngineApiError('INVALID_PARAMS', `Parent block not found: ${bytesToHex(parentHash)}`);
    const entries = transactions?.map((tx, i) => {
      const sender = tx.getSenderAddress();
      const hash = tx.hash();
      return {
        tx,
        hash,
        hashHex: bytesToHex(hash),
        sender,
        senderHex: sender.toString(),
        local: true,
        addedAt: 0,
        size: 0,
        seq: i,
      } satisfies PooledTx;
    });
    try {
      return await this.build(parent, attrs, entries, extraData);
    } catch (err) {
      if (err instanceof BuildTransactionError)
        throw new EngineApiError('TRANSACTION_NOT_APPLICABLE', err.message);
      throw err;
    }
  }

  // ------------------------------------------------------------------ bodies, blobs

  payloadBodiesByHash(hashes: Uint8Array[]): (PayloadBody | null)[] {
    if (hashes.length > MAX_BODIES_REQUEST) throw new EngineApiError('TOO_LARGE_REQUEST');
    return hashes.map((h) => this.bodyOf(h));
  }

  payloadBodiesByRange(start: bigint, count: bigint): (PayloadBody | null)[] {
    if (start < 1n || count < 1n)
      throw new EngineApiError('INVALID_PARAMS', `Invalid start (${start}) or count (${count}) parameter`);
    if (count > BigInt(MAX_BODIES_REQUEST)) throw new EngineApiError('TOO_LARGE_REQUEST');
    const head = this.deps.chain.head().number;
    const out: (PayloadBody | null)[] = [];
    const last = start + count - 1n > head ? head : start + count - 1n;
    for (let n = start; n <= last; n++) {
      const hash = this.deps.chain.canonicalHash(n);
      out.push(hash ? this.bodyOf(hash) : null);
    }
    return out;
  }

  private bodyOf(hash: Uint8Array): PayloadBody | null {
    const block = this.deps.chain.getBlock(hash);
    if (!block) return null;
    return {
      transactions: block.transactions.map((tx) => tx.serialize()),
      withdrawals: block.withdrawals ?? null,
    };
  }

  /** engine_getBlobsV1: the pool's blob and proof for each versioned hash, null where it has none. */
  blobs(versionedHashes: Uint8Array[]): ({ blob: Uint8Array; proof: Uint8Array } | null)[] {
    if (versionedHashes.length > MAX_BLOBS_REQUEST) throw new EngineApiError('TOO_LARGE_REQUEST');
    const found = new Map<string, { blob: Uint8Array; proof: Uint8Array }>();
    for (const entry of this.deps.pool?.all() ?? []) {
      const tx = entry.tx;
      if (!(tx instanceof Blob4844Tx) || !tx.blobs || !tx.kzgProofs) continue;
      tx.blobVersionedHashes.forEach((h, i) => {
        const blob = tx.blobs?.[i];
        const proof = tx.kzgProofs?.[i];
        if (blob !== undefined && proof !== undefined)
          found.set(bytesToHex(toBytes(h)), { blob: toBytes(blob), proof: toBytes(proof) });
      });
    }
    return versionedHashes.map((h) => found.get(bytesToHex(h)) ?? null);
  }

  /**
   * engine_getBlobsV2 (Osaka): each blob with its cell proofs (EIP-7594 network form, 128 per blob),
   * null where the pool lacks it.
   */
  blobsWithCellProofs(versionedHashes: Uint8Array[]): ({ blob: Uint8Array; proofs: Uint8Array[] } | null)[] {
    if (versionedHashes.length > MAX_BLOBS_REQUEST) throw new EngineApiError('TOO_LARGE_REQUEST');
    const found = new Map<string, { blob: Uint8Array; proofs: Uint8Array[] }>();
    for (const entry of this.deps.pool?.all() ?? []) {
      const tx = entry.tx;
      if (!(tx instanceof Blob4844Tx) || !tx.blobs || !tx.kzgProofs) continue;
      const perBlob = tx.kzgProofs.length / tx.blobs.length;
      if (perBlob !== CELLS_PER_EXT_BLOB) continue;
      tx.blobVersionedHashes.forEach((h, i) => {
        const blob = tx.blobs?.[i];
        if (blob === undefined) return;
        const proofs = (tx.kzgProofs ?? []).slice(i * perBlob, (i + 1) * perBlob).map(toBytes);
        found.set(bytesToHex(toBytes(h)), { blob: toBytes(blob), proofs });
      });
    }
    return versionedHashes.map((h) => found.get(bytesToHex(h)) ?? null);
  }

  /** The configured terminal total difficulty (0 when the chain starts after the merge). */
  get terminalTotalDifficulty(): bigint {
    return this.deps.genesis.config.terminalTotalDifficulty ?? 0n;
  }

  // ------------------------------------------------------------------ helpers

  private commonAt(number: bigint, timestamp: bigint): Common {
    const common = this.deps.chain.common.copy();
    common.setHardforkBy({ blockNumber: number, timestamp });
    return common;
  }

  private markDriven(): void {
    if (this.driven) return;
    this.driven = true;
    this.deps.onDriven?.();
  }
}

function valid(hash: Uint8Array): PayloadStatus {
  return { status: 'VALID', latestValidHash: hash, validationError: null };
}

function syncing(): PayloadStatus {
  return { status: 'SYNCING', latestValidHash: null, validationError: null };
}

function invalid(latestValidHash: Uint8Array | null, validationError: string): PayloadStatus {
  return { status: 'INVALID', latestValidHash, validationError };
}

function isZero(hash: Uint8Array): boolean {
  return bytesEqual(hash, ZERO32);
}

function toBytes(v: Uint8Array | string): Uint8Array {
  if (typeof v !== 'string') return v;
  const hex = v.startsWith('0x') ? v.slice(2) : v;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** A transaction as a payload carries it: the typed envelope, or a legacy RLP list. */
export function decodeTransaction(raw: Uint8Array, common: Common): TypedTransaction {
  const first = raw[0];
  if (first === undefined) throw new Error('empty transaction');
  const data = first >= 0xc0 ? (RLP.decode(raw) as never) : (raw as never);
  return createTxFromBlockBodyData(data, { common });
}

/** 8 bytes of the hash of what the payload is built from. */
function payloadIdOf(parentHash: Uint8Array, attrs: PayloadAttributes): Uint8Array {
  const parts: Uint8Array[] = [
    parentHash,
    bigIntToBytes(attrs.timestamp),
    attrs.prevRandao,
    attrs.suggestedFeeRecipient.bytes,
  ];
  if (attrs.withdrawals) parts.push(RLP.encode(attrs.withdrawals.map((w) => w.raw()) as never));
  if (attrs.parentBeaconBlockRoot) parts.push(attrs.parentBeaconBlockRoot);
  return keccak256(concatBytes(...parts)).slice(0, 8);
}

function firstLine(err: unknown): string {
  return String(err instanceof Error ? err.message : err).split('\n')[0] as string;
}
