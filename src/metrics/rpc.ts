/**
 * JSON-RPC metrics: per method, the number of requests, of error answers, and a histogram of handler
 * time. Methods are wrapped once when the dispatcher is built; a synchronous handler stays synchronous.
 */
import type { MetricsService } from './service.js';

/** The part of a JSON-RPC method the wrapper needs (structural, so this layer does not import rpc/). */
interface Handled {
  name: string;
  handler(...args: never[]): unknown;
}

const BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

export type MethodInstrument = <M extends Handled>(methods: readonly M[]) => M[];

/** Returns a function that wraps methods with the rpc metrics, or leaves them as they are when off. */
export function rpcInstrument(m: MetricsService): MethodInstrument {
  const time = m.histogram(
    'rpc',
    'request_time',
    'Time taken to process a JSON-RPC request',
    ['methodName'],
    BUCKETS,
  );
  const requests = m.counter('rpc', 'requests_total', 'JSON-RPC requests answered', ['methodName']);
  const errors = m.counter('rpc', 'errors_total', 'JSON-RPC requests answered with an error', ['methodName']);
  if (!time || !requests || !errors) return (methods) => [...methods];
  return <M extends Handled>(methods: readonly M[]): M[] =>
    methods.map((method) => {
      const timer = time.labels(method.name);
      const count = requests.labels(method.name);
      const failed = errors.labels(method.name);
      const original = method.handler;
      const handler = function (this: unknown, ...args: never[]): unknown {
        const started = performance.now();
        count.inc();
        let out: unknown;
        try {
          out = original.apply(this, args);
        } catch (err) {
          failed.inc();
          timer.observe((performance.now() - started) / 1000);
          throw err;
        }
        if (out instanceof Promise) {
          return out.then(
            (v) => {
              timer.observe((performance.now() - started) / 1000);
              return v;
            },
            (err: unknown) => {
              failed.inc();
              timer.observe((performance.now() - started) / 1000);
              throw err;
            },
          );
        }
        timer.observe((performance.now() - started) / 1000);
        return out;
      };
      return { ...method, handler } as M;
    });
}
