/**
 * A result that is already JSON text. Handlers return it for answers served from the response cache:
 * the dispatcher splices the text into the envelope instead of serialising an object again.
 */
export class RawJson {
  /**
   * `ascii`: the text holds only ASCII characters (as serialised hex data always does), so its length
   * is its UTF-8 byte length and a server may write it without encoding it. False when not known.
   */
  constructor(
    readonly json: string,
    readonly ascii = false,
  ) {}

  /** Anything else that serialises it (a nested value, another transport) gets the same JSON. */
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/** Whether every character of `text` is ASCII (below U+0080). */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Serialised results of immutable data (a block by hash never changes), bounded by their total length.
 * Least recently used entries leave first. One per node, shared by every transport and connection.
 */
export class ResponseCache {
  private readonly entries = new Map<string, RawJson>();
  private size = 0;
  /** Lookups answered from the cache, and lookups that were not (for metrics and tests). */
  hits = 0;
  misses = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): RawJson | undefined {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.hits++;
      this.entries.delete(key);
      this.entries.set(key, hit);
    } else {
      this.misses++;
    }
    return hit;
  }

  /** Characters of JSON text held. */
  get chars(): number {
    return this.size;
  }

  /** Serialises `value`, keeps the text when it fits, and returns it. */
  put(key: string, value: unknown): RawJson {
    const text = JSON.stringify(value) ?? 'null';
    // Checked once here, the text's every later answer is written without re-encoding it.
    const raw = new RawJson(text, isAscii(text));
    const length = raw.json.length;
    if (length > this.maxChars / 8) return raw;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.size -= old.json.length;
    }
    this.entries.set(key, raw);
    this.size += length;
    while (this.size > this.maxChars) {
      const oldest = this.entries.keys().next().value as string;
      this.size -= (this.entries.get(oldest) as RawJson).json.length;
      this.entries.delete(oldest);
    }
    return raw;
  }
}
