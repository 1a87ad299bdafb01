/** Polls `cond` every `everyMs` until it holds; fails after `ms` naming `what`. */
export async function until(cond: () => boolean, ms: number, what: string, everyMs = 10): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
