/** The rpc-compat eth_sendRawTransaction and txpool_* exchanges, in hive's order, on the imported chain. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, type TestChain } from '../methods/chain.js';
import { openPoolChain } from './helpers.js';

const RC = join(CONFORMANCE, 'rpc-compat');

function exchanges(
  file: string,
): Array<{ method: string; params: unknown[]; expected: Record<string, unknown> }> {
  const lines = readFileSync(join(RC, file), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    if (!l.startsWith('>>')) continue;
    const req = JSON.parse(l.slice(2)) as { method: string; params?: unknown[] };
    const next = lines.slice(i + 1).find((x) => x.startsWith('<<')) as string;
    out.push({ method: req.method, params: req.params ?? [], expected: JSON.parse(next.slice(2)) });
  }
  return out;
}

describe('rpc-compat eth_sendRawTransaction + txpool', () => {
  let chain: TestChain;
  beforeAll(async () => {
    chain = await openPoolChain({ genesis: join(RC, 'genesis.json'), blocks: join(RC, 'chain.rlp') });
  });
  afterAll(async () => {
    await chain?.close();
  });

  for (const f of [
    'send-access-list-transaction.io',
    'send-blob-tx.io',
    'send-dynamic-fee-access-list-transaction.io',
    'send-dynamic-fee-transaction.io',
    'send-legacy-transaction.io',
  ]) {
    it(f, async () => {
      for (const x of exchanges(`eth_sendRawTransaction/${f}`)) {
        const r = await chain.call(x.method, x.params);
        expect(r).toEqual({ result: x.expected.result });
      }
    });
  }

  it('txpool_status, txpool_content, txpool_contentFrom see the five transactions', async () => {
    expect((await chain.call('txpool_status')).result).toEqual({ pending: '0x5', queued: '0x0' });
    const content = (await chain.call('txpool_content')).result as {
      pending: Record<string, Record<string, Record<string, unknown>>>;
    };
    const expected = exchanges('txpool_content/get-content.io')[0]?.expected.result as typeof content;
    for (const [sender, txs] of Object.entries(content.pending)) {
      for (const [nonce, tx] of Object.entries(txs)) {
        const exp = expected.pending[sender]?.[nonce];
        if (!exp) continue;
        for (const k of ['hash', 'from', 'nonce', 'input', 'gas', 'value', 'type', 'v', 'r', 's'])
          expect(tx[k], k).toEqual(exp[k]);
      }
    }
    expect(Object.keys(content.pending).length).toBeGreaterThan(0);
    expect(
      (await chain.call('txpool_contentFrom', ['0x0000000000000000000000000000000000000000'])).result,
    ).toEqual({
      pending: {},
      queued: {},
    });
  });
});
