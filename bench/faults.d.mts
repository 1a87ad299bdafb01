// Types for bench/faults.mjs, so TypeScript tests can import it.
export type FaultScenario = 'mining' | 'import' | 'sync' | 'bft' | 'bft-net' | 'engine';

export const SCENARIOS: FaultScenario[];

export interface FaultRunOptions {
  /** Scenarios to run; `mining` and `import` by default. */
  scenarios?: FaultScenario[];
  /** Kills per scenario (import: `importKills`). */
  kills?: number;
  importKills?: number;
  seed?: number;
  log?: (line: string) => void;
  minRunMs?: number;
  maxRunMs?: number;
  engine?: 'clique' | 'ethash';
  bft?: 'qbft' | 'ibft2';
  /** Blocks of the chain the sync scenario's source holds. */
  syncBlocks?: number;
  /** The fork of the sync scenario's post-merge chain (Cancun by default). */
  syncFork?: 'cancun' | 'shanghai';
}

interface Restarts {
  restartMs: number[];
  restartP50: number;
  restartMax: number;
}

interface Losses extends Restarts {
  kills: number;
  survived: number;
  blocksLost: number;
  receiptsLost: number;
}

export interface FaultRunResult {
  mining?: Losses & { balanceErrors: number; onReceipt: number };
  imports?: Restarts & {
    kills: number;
    survived: number;
    blocksLost: number;
    finalHead: [string, string] | null;
    finalExit: number | null;
  };
  sync?: Losses & { rounds: number; synced: number; finalMismatches: number; aboveHead: number };
  bft?: Losses & { balanceErrors: number; onReceipt: number };
  bftNet?: Losses & { balanceErrors: number; stalls: number; forks: number };
  engine?: Losses & {
    balanceErrors: number;
    unconfirmedCanonical: number;
    badHeads: number;
    forkchoiceLost: number;
    resumedPayloads: { kept: number; 'sent again': number };
    resumeErrors: number;
    phases: Record<string, number>;
    builtOn: boolean;
  };
  restartP50: number;
  restartMax: number;
}

export function runFaults(options?: FaultRunOptions): Promise<FaultRunResult>;

export function summarize(result: FaultRunResult): { lines: string[]; failed: boolean };
