/**
 * The scalars as Besu reads and writes them, and argument refusals worded as Besu (graphql-java)
 * words them. Validation refuses before anything runs, so no chain is needed here.
 */
import { describe, expect, it } from 'vitest';
import { runGraphQL } from '../../src/graphql/execute.js';
import { scalars } from '../../src/graphql/scalars.js';
import type { Services } from '../../src/rpc/services.js';

const NO_SERVICES = {} as Services;

async function refusal(query: string): Promise<unknown> {
  const answer = await runGraphQL(NO_SERVICES, { query });
  expect(answer.status).toBe(400);
  return (answer.body?.errors as unknown[] | undefined)?.[0];
}

describe('scalars', () => {
  it('write Long and BigInt as hex quantities and bytes as 0x hex, padding fixed-size values', () => {
    expect(scalars.Long.serialize(0n)).toBe('0x0');
    expect(scalars.Long.serialize(255n)).toBe('0xff');
    expect(scalars.BigInt.serialize(10n ** 18n)).toBe('0xde0b6b3a7640000');
    expect(scalars.Bytes.serialize(new Uint8Array())).toBe('0x');
    expect(scalars.Bytes32.serialize(Uint8Array.of(1))).toBe(`0x${'00'.repeat(31)}01`);
  });

  it('read numbers from JSON numbers and decimal or hex strings', () => {
    expect(scalars.Long.parseValue(30)).toBe(30n);
    expect(scalars.Long.parseValue('30')).toBe(30n);
    expect(scalars.Long.parseValue('0x1e')).toBe(30n);
    expect(scalars.BigInt.parseValue('0xde0b6b3a7640000')).toBe(10n ** 18n);
    expect(() => scalars.Long.parseValue('-1')).toThrow('Unable to parse variable value -1 as an Long');
    expect(() => scalars.Long.parseValue(`0x1${'0'.repeat(16)}`)).toThrow();
  });

  it('read bytes leniently (odd digit count padded), fixed sizes padded on the left', () => {
    expect(scalars.Bytes.parseValue('0x123')).toEqual(Uint8Array.of(0x01, 0x23));
    expect((scalars.Bytes32.parseValue('0x21') as Uint8Array)[31]).toBe(0x21);
    expect(() => scalars.Address.parseValue('0x12')).toThrow(
      'Unable to parse variable value 0x12 as an Address',
    );
  });

  it("word a literal refused by its scalar as Besu: path, argument path, literal, the scalar's reason", async () => {
    expect(await refusal('{ block(number: 1) { call(data: { data: "12" }) { status } } }')).toEqual({
      message:
        "Validation error (WrongType@[block/call]) : argument 'data.data' with value 'StringValue{value='12'}' is not a valid 'Bytes' - Bytes value '12' is not prefixed with 0x",
      locations: [{ line: 1, column: 27 }],
      extensions: { classification: 'ValidationError' },
    });
    expect(await refusal('{ block(number: "0xzz") { number } }')).toMatchObject({
      message:
        "Validation error (WrongType@[block]) : argument 'number' with value 'StringValue{value='0xzz'}' is not a valid 'Long' - Value is not any Long : 'StringValue{value='0xzz'}'",
    });
    expect(await refusal('{ block { account(address: "0x12") { balance } } }')).toMatchObject({
      message:
        "Validation error (WrongType@[block/account]) : argument 'address' with value 'StringValue{value='0x12'}' is not a valid 'Address' - Value is not any Address : 'StringValue{value='0x12'}'",
    });
  });

  it('refuse a variable of the wrong shape before running', async () => {
    const answer = await runGraphQL(NO_SERVICES, {
      query: 'query q($n: Long) { block(number: $n) { number } }',
      variables: { n: 'abc' },
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('Unable to parse variable value abc as an Long');
  });
});
