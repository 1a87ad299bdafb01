// Configuration for Hardhat's node when it runs as a benchmark peer (bench/run.mjs starts it).
// The funded account and the scratch directories come from the environment the runner sets.
const os = require('node:os');
const path = require('node:path');

const scratch = process.env.ALDER_BENCH_HARDHAT_DIR ?? path.join(os.tmpdir(), 'alder-bench-hardhat');

module.exports = {
  networks: {
    hardhat: {
      chainId: Number(process.env.ALDER_BENCH_CHAIN_ID ?? 31415),
      accounts: (process.env.ALDER_BENCH_KEYS ?? '')
        .split(',')
        .filter(Boolean)
        .map((privateKey) => ({
          privateKey,
          balance: '1000000000000000000000000000',
        })),
      loggingEnabled: false,
    },
  },
  paths: {
    root: scratch,
    sources: path.join(scratch, 'contracts'),
    cache: path.join(scratch, 'cache'),
    artifacts: path.join(scratch, 'artifacts'),
  },
};
