/**
 * Returns the memory a node's start-up used and no longer needs.
 *
 * Evaluating the module graph, opening the chain and building the services leave ~15–20 MB of
 * survivors behind them: V8 sizes its young generation by how much survives its collections, so a
 * start-up grows it to its maximum (two semi-spaces, ~20 MB resident) and an idle node keeps it so,
 * empty, for as long as it runs — V8 only shrinks it at a collection that sees a low allocation rate,
 * and an idle node collects nothing. One memory-reducing collection once the node is built gives that
 * back, with the old generation's free pages. Under load the young generation grows again as before.
 *
 * The collection is asked for through an in-process inspector session (no port, no thread): it is the
 * one way to reach V8's low-memory collection without starting Node with --expose-gc. Where the
 * inspector is missing (a Node built without it) nothing happens.
 */
import type { Session } from 'node:inspector';

export async function releaseStartupMemory(): Promise<void> {
  let session: Session;
  try {
    // Loading node:inspector itself throws where Node was built without it.
    const { Session } = await import('node:inspector');
    session = new Session();
    session.connect();
  } catch {
    return;
  }
  return new Promise<void>((resolve) => {
    session.post('HeapProfiler.collectGarbage', () => {
      // A session cannot be closed from inside one of its own callbacks.
      setImmediate(() => {
        session.disconnect();
        resolve();
      });
    });
  });
}
