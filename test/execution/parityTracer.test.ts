/**
 * The Parity-style tracing service on Besu's trace chain (blocks 1–0x13): results are handed out one
 * transaction at a time, a reader that goes away stops the replay at the next transaction, and a
 * streamed trace_block answer over the method layer is the same text as the whole answer.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParityTracer } from '../../src/execution/tracers/parity/service.js';
import { TraceReaderGone } from '../../src/execution/tracers/sink.js';
import { traceBlock } from '../../src/rpc/methods/trace/blocks.js';
import { StreamingResult } from '../../src/rpc/streaming.js';
import { CONFORMANCE, openTestChain, type TestChain } from '../methods/chain.js';

const TRACE = join(CONFORMANCE, 'besu/trace/chain-data');

describe('ParityTracer', () => {
  let chain: TestChain;
  let tracer: ParityTracer;
  beforeAll(async () => {
    chain = await openTestChain({
      genesis: join(TRACE, 'genesis.json'),
      blocks: join(TRACE, 'blocks.bin'),
      upTo: 0x13n,
      config: { minerCoinbase: '0x0000000000000000000000000000000000000000' },
    });
    const { importer } = chain.services;
    tracer = new ParityTracer(importer.processor, importer.rules);
  }, 60_000);
  afterAll(async () => {
    await chain?.close();
  });

  it('hands out each transaction of a block in order', async () => {
    const block = chain.services.chain.getBlockByNumber(0x13n);
    if (!block) throw new Error('no block 0x13');
    const hashes: string[] = [];
    await tracer.replayTransactions(block, { trace: true, vmTrace: false, stateDiff: false }, (r) => {
      hashes.push(r.transactionHash);
    });
    expect(hashes).toHaveLength(6);
    expect(hashes).toEqual(block.transactions.map((tx) => `0x${Buffer.from(tx.hash()).toString('hex')}`));
  });

  it('stops at the next transaction once the reader has gone', async () => {
    const block = chain.services.chain.getBlockByNumber(0x13n);
    if (!block) throw new Error('no block 0x13');
    let calls = 0;
    const run = tracer.blockTraces(
      block,
      () => {
        calls++;
        throw new TraceReaderGone(new Error('socket closed'));
      },
      { rewards: true },
    );
    await expect(run).rejects.toBeInstanceOf(TraceReaderGone);
    // The first transaction's first trace failed; nothing after the next transaction's start ran.
    expect(calls).toBe(1);
  });

  it('streams trace_block as the text of the whole answer', async () => {
    const answer = await traceBlock.handler(['0x13'], { services: chain.services, transport: 'http' });
    expect(answer).toBeInstanceOf(StreamingResult);
    const parts: string[] = [];
    await (answer as StreamingResult).produce((t) => {
      parts.push(t);
      return undefined;
    });
    // One write per trace between the brackets: the answer is never built whole.
    expect(parts.length).toBeGreaterThan(6);
    const whole = await chain.call('trace_block', ['0x13']);
    expect(JSON.parse(parts.join(''))).toEqual(whole.result);
  });
});
