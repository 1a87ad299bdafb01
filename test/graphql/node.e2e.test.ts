/**
 * `alder --graphql-http-enabled` as users run it: the built CLI on the dev network, GraphQL on its own
 * 127.0.0.1 port. A transfer signed with viem goes in through the `sendRawTransaction` mutation (with
 * variables), shows in `pending`, is mined, and then reads the same through GraphQL and JSON-RPC.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_ADDRESSES, DEV_KEYS, type DevNode, startDevNode } from '../helpers/devNetwork.js';
import { freePort, rpc } from '../helpers/node.js';

const GWEI = 1_000_000_000n;
const TO = '0x00000000000000000000000000000000000000aa';

describe('GraphQL endpoint of the CLI', () => {
  let node: DevNode;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    node = await startDevNode([
      '--graphql-http-enabled',
      '--graphql-http-host=127.0.0.1',
      `--graphql-http-port=${port}`,
      '--graphql-http-cors-origins=http://app.example',
    ]);
    url = `http://127.0.0.1:${port}/graphql`;
  }, 60_000);
  afterAll(async () => {
    await node?.close();
  });

  async function gql(query: string, variables?: Record<string, unknown>) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are untyped JSON
    return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
  }

  it('accepts a transaction through the mutation, then serves it as JSON-RPC does', async () => {
    const account = privateKeyToAccount(DEV_KEYS.a);
    const nonceHex = await rpc<string>(node.url, 'eth_getTransactionCount', [DEV_ADDRESSES.a, 'latest']);
    const raw = await account.signTransaction({
      chainId: 1337,
      nonce: Number(nonceHex),
      gas: 21000n,
      gasPrice: 2n * GWEI,
      to: TO,
      value: 12345n,
    });
    const sent = await gql('mutation send($data: Bytes!) { sendRawTransaction(data: $data) }', { data: raw });
    expect(sent.status).toBe(200);
    const hash = sent.body.data.sendRawTransaction as string;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);

    // The same bytes again: the pool refuses them, and GraphQL says so with Besu's shape.
    const again = await gql('mutation send($data: Bytes!) { sendRawTransaction(data: $data) }', {
      data: raw,
    });
    expect(again.status).toBe(400);
    expect(again.body.errors?.[0].message).toMatch(
      /^Exception while fetching data \(\/sendRawTransaction\) : /,
    );
    expect(again.body.errors?.[0].extensions.classification).toBe('DataFetchingException');

    // Until mined it is pending, with its sender and no block.
    const pending = await gql('{ pending { transactions { hash block { number } from { address } } } }');
    expect(pending.status).toBe(200);
    // biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are untyped JSON
    const listed = pending.body.data.pending.transactions.find((t: any) => t.hash === hash);
    if (listed) expect(listed).toEqual({ hash, block: null, from: { address: DEV_ADDRESSES.a } });

    // Mining on a busy machine can take a while; a block usually comes within seconds.
    // biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are untyped JSON
    let mined: any;
    const deadline = Date.now() + 100_000;
    while (Date.now() < deadline) {
      const { body } = await gql(
        'query t($h: Hash!) { transaction(hash: $h) { status index gasUsed block { number hash } from { address } to { address balance } } }',
        { h: hash },
      );
      if (body.data.transaction) {
        mined = body.data.transaction;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(mined).toBeDefined();
    const receipt = await rpc<Record<string, string>>(node.url, 'eth_getTransactionReceipt', [hash]);
    expect(mined.status).toBe(receipt.status);
    expect(mined.gasUsed).toBe(receipt.gasUsed);
    expect(mined.index).toBe(receipt.transactionIndex);
    expect(mined.block.hash).toBe(receipt.blockHash);
    expect(mined.from.address).toBe(DEV_ADDRESSES.a);
    expect(mined.to.address).toBe(TO);
    expect(mined.to.balance).toBe(await rpc(node.url, 'eth_getBalance', [TO, mined.block.number]));

    // A transaction below the sender's nonce now: Besu's code and message.
    const stale = await gql(`mutation { sendRawTransaction(data: "${raw}") }`);
    expect(stale.status).toBe(400);
    expect(stale.body.errors?.[0]).toMatchObject({
      message: 'Exception while fetching data (/sendRawTransaction) : Nonce too low',
      path: ['sendRawTransaction'],
      extensions: {
        errorCode: -32001,
        errorMessage: 'Nonce too low',
        classification: 'DataFetchingException',
      },
    });
  }, 150_000);

  it('answers the chain facts JSON-RPC answers', async () => {
    const { status, body } = await gql(
      '{ chainID gasPrice maxPriorityFeePerGas syncing { currentBlock } protocolVersion pending { transactionCount account(address: "0xfe3b557e8fb62b89f4916b721be55ceb828dbd73") { balance transactionCount } } }',
    );
    expect(status).toBe(200);
    expect(body.data.chainID).toBe(await rpc(node.url, 'eth_chainId'));
    expect(body.data.syncing).toBeNull();
    expect(body.data.protocolVersion).toBe(Number(await rpc(node.url, 'eth_protocolVersion')));
    expect(body.data.gasPrice).toMatch(/^0x[0-9a-f]+$/);
    expect(body.data.pending.account.transactionCount).toMatch(/^0x[0-9a-f]+$/);
  });

  it('logs that it serves GraphQL', () => {
    expect(node.output()).toMatch(/GraphQL HTTP service started on 127\.0\.0\.1:\d+/);
  });
});
