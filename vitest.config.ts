import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The foreign clients' own packages (test/clients/*/node_modules) carry their test files.
    exclude: ['**/node_modules/**', 'test/clients/**'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
