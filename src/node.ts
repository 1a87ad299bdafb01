/**
 * Composition root: builds every service from one Config and wires them together.
 * The CLI calls these three entry points; nothing else knows every service.
 */
import type { Config } from './config/types.js';

export interface RunningNode {
  /** Stops servers and closes the database; resolves when everything is closed. */
  stop(): Promise<void>;
}

export interface ImportOptions {
  skipPowValidation: boolean;
  /** Called after each imported block (for progress display). */
  onProgress?: (imported: number, total: number | undefined, number: bigint) => void;
}

export interface ImportSummary {
  imported: number;
  skipped: number;
  head: { number: bigint; hash: string };
}

export interface ExportOptions {
  from: bigint;
  to?: bigint;
  file: string;
}

export async function startNode(_config: Config): Promise<RunningNode> {
  throw new Error('startNode: wired in a later commit');
}

export async function importBlocks(_config: Config, _files: string[], _opts: ImportOptions): Promise<ImportSummary> {
  throw new Error('importBlocks: wired in a later commit');
}

export async function exportBlocks(_config: Config, _opts: ExportOptions): Promise<number> {
  throw new Error('exportBlocks: wired in a later commit');
}
