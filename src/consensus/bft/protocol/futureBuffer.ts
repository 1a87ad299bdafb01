/**
 * Messages for heights above the one being agreed, kept until the chain gets there: at most
 * `futuremessagesmaxdistance` heights ahead and `futuremessageslimit` messages in all. Past the limit the
 * highest height is dropped first (the one least likely to be needed), as Besu does.
 */
export class FutureMessageBuffer<M> {
  private readonly byHeight = new Map<bigint, M[]>();
  private total = 0;

  constructor(
    private readonly maxDistance: bigint,
    private readonly limit: number,
    private height: bigint,
  ) {}

  add(height: bigint, msg: M): void {
    if (this.limit === 0 || height <= this.height || height > this.height + this.maxDistance) return;
    const list = this.byHeight.get(height);
    if (list) list.push(msg);
    else this.byHeight.set(height, [msg]);
    this.total++;
    if (this.total > this.limit) this.evict();
  }

  private evict(): void {
    const heights = [...this.byHeight.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (heights.length > 1) {
      const top = heights[heights.length - 1] as bigint;
      this.total -= this.byHeight.get(top)?.length ?? 0;
      this.byHeight.delete(top);
    } else if (heights.length === 1) {
      this.byHeight.get(heights[0] as bigint)?.shift();
      this.total--;
    }
  }

  /** The messages for `height` (now the current one); lower heights are dropped. */
  take(height: bigint): M[] {
    this.height = height;
    const out = this.byHeight.get(height) ?? [];
    for (const h of [...this.byHeight.keys()]) {
      if (h <= height) {
        this.total -= this.byHeight.get(h)?.length ?? 0;
        this.byHeight.delete(h);
      }
    }
    return out;
  }

  get size(): number {
    return this.total;
  }
}
