/**
 * A fixed sample of the consensus suite's BlockchainTests (see `sampleCases`: the first test of every
 * category of ValidBlocks, InvalidBlocks, TransitionTests and GeneralStateTests), each imported through
 * the LMDB import path and checked against the suite's pass rule. The whole set runs with
 * `npm run ethereum-tests`.
 */
import { describe, expect, it } from 'vitest';
import { readTestFile, runTest, sampleCases } from './runner.js';

const cases = sampleCases();
/** Transaction messages of the sample that ran on the call interpreter. */
let onInterpreter = 0;

describe('ethereum/tests BlockchainTests sample', () => {
  it('draws from every area of the suite', () => {
    const tops = new Set(cases.map((c) => c.file.split('/')[0]));
    expect([...tops].sort()).toEqual([
      'GeneralStateTests',
      'InvalidBlocks',
      'TransitionTests',
      'ValidBlocks',
    ]);
    expect(cases.length).toBeGreaterThan(60);
  });

  for (const c of cases) {
    it(`${c.file} ${c.name}`, async () => {
      const test = readTestFile(c.file)[c.name];
      if (!test) throw new Error(`${c.file} has no test ${c.name}`);
      const result = await runTest(c.file, c.name, test);
      onInterpreter += result.interpreter?.fast ?? 0;
      expect(result.reason).toBeUndefined();
      expect(result.passed).toBe(true);
    });
  }

  it('ran transaction messages of the sample on the call interpreter', () => {
    expect(onInterpreter).toBeGreaterThan(cases.length / 2);
  });
});
