// Types for bench/faults.mjs, so TypeScript tests can import it.
export interface FaultRunOptions {
  kills?: number;
  importKills?: number;
  seed?: number;
  log?: (line: string) => void;
  minRunMs?: number;
  maxRunMs?: number;
  engine?: 'clique' | 'ethash';
}

export interface FaultRunResult {
  mining: {
    kills: number;
    survived: number;
    blocksLost: number;
    receiptsLost: number;
    balanceErrors: number;
    restartMs: number[];
  };
  imports?: {
    kills: number;
    survived: number;
    blocksLost: number;
    restartMs: number[];
    finalHead: [string, string] | null;
    finalExit: number | null;
  };
  restartP50: number;
  restartMax: number;
}

export function runFaults(options?: FaultRunOptions): Promise<FaultRunResult>;
