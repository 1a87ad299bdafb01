/**
 * The `logs` subscription filter: `{address?, topics?}` parsed and matched as Besu's LogsQuery does.
 * An empty address list matches any address; each topic position is a wildcard (null, or a list
 * containing null) or a set of hashes; a log with fewer topics than the filter has positions never
 * matches, trailing wildcards included.
 */
import type { JsonObject } from './source.js';

export interface LogFilter {
  addresses: ReadonlySet<string>;
  /** One entry per position; `undefined` = any topic. */
  topics: ReadonlyArray<ReadonlySet<string> | undefined>;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;

/** Returns undefined when the filter is not valid. */
export function parseLogFilter(value: unknown): LogFilter | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { address, topics } = value as JsonObject;

  const addresses = new Set<string>();
  if (address !== undefined && address !== null) {
    const list = Array.isArray(address) ? address : [address];
    for (const a of list) {
      if (typeof a !== 'string' || !ADDRESS.test(a)) return undefined;
      addresses.add(a.toLowerCase());
    }
  }

  const positions: Array<ReadonlySet<string> | undefined> = [];
  if (topics !== undefined && topics !== null) {
    if (!Array.isArray(topics)) return undefined;
    for (const t of topics) {
      if (t === null) {
        positions.push(undefined);
      } else if (typeof t === 'string') {
        if (!HASH.test(t)) return undefined;
        positions.push(new Set([t.toLowerCase()]));
      } else if (Array.isArray(t)) {
        const set = new Set<string>();
        let wildcard = t.length === 0;
        for (const h of t) {
          if (h === null) wildcard = true;
          else if (typeof h === 'string' && HASH.test(h)) set.add(h.toLowerCase());
          else return undefined;
        }
        positions.push(wildcard ? undefined : set);
      } else {
        return undefined;
      }
    }
  }
  return { addresses, topics: positions };
}

export function logMatches(filter: LogFilter, log: JsonObject): boolean {
  if (filter.addresses.size > 0) {
    const address = log.address;
    if (typeof address !== 'string' || !filter.addresses.has(address.toLowerCase())) return false;
  }
  if (filter.topics.length === 0) return true;
  const topics = Array.isArray(log.topics) ? log.topics : [];
  if (topics.length < filter.topics.length) return false;
  for (let i = 0; i < filter.topics.length; i++) {
    const wanted = filter.topics[i];
    if (wanted === undefined) continue;
    const topic = topics[i];
    if (typeof topic !== 'string' || !wanted.has(topic.toLowerCase())) return false;
  }
  return true;
}
