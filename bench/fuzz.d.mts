// Types for bench/fuzz.mjs, so TypeScript tests can import it.
export interface FuzzResult {
  requests: number;
  http: number;
  ws: number;
  byKind: Record<string, number>;
  status: Record<string, number>;
  defects: { transport?: string; kind?: string; defect: string; request?: string }[];
  internalErrors: Record<string, number>;
  internalErrorSamples?: string[];
  slow: { sent: number; closedByServer: number };
  rssBeforeMiB: number;
  rssAfterMiB: number;
  crashed: boolean;
}

export function runFuzz(options?: {
  requests?: number;
  seed?: number;
  wsShare?: number;
  concurrency?: number;
  slowSenders?: number;
  /** How long each slow sender keeps sending (the server must close it before). */
  slowMs?: number;
  log?: (line: string) => void;
}): Promise<FuzzResult>;
