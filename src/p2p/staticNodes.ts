/** `<data-path>/static-nodes.json`: a JSON array of enode URLs the node keeps connected (as Besu). */
import { existsSync, readFileSync } from 'node:fs';
import { type Enode, parseEnode } from './enode.js';

export class StaticNodesError extends Error {}

export function readStaticNodes(file: string): Enode[] {
  if (!existsSync(file)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new StaticNodesError(`Static nodes file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed) || parsed.some((e) => typeof e !== 'string'))
    throw new StaticNodesError(`Static nodes file ${file} must hold a JSON array of enode URLs`);
  return parsed.map((url: string) => {
    try {
      return parseEnode(url);
    } catch (err) {
      throw new StaticNodesError(`Static nodes file ${file}: ${(err as Error).message}`);
    }
  });
}
