// Module resolution for the EthereumJS client 0.10.5 as a test peer. The shared node_modules holds the
// client's own 10.0.0 copies of block, common, tx … under its folder, but the 10.0.0 packages it shares
// with Alder's tree (blockchain, devp2p, ethash, genesis) would load Alder's 10.1.x block and common,
// and the client's `instanceof Block` checks then fail on every block it stores. Resolving those
// packages' imports from the client's folder gives the client one consistent set.
import { createRequire } from 'node:module';

const clientEntry = createRequire(import.meta.url).resolve('@ethereumjs/client/package.json');
const CLIENT_PARENT = new URL(`file://${clientEntry}`).href;
const NESTED = /^@ethereumjs\/(block|common|evm|mpt|rlp|statemanager|tx|util|vm)(\/.*)?$/;
const SHARED_10_0_0 = /\/node_modules\/@ethereumjs\/(blockchain|devp2p|ethash|genesis)\//;

export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? '';
  if (NESTED.test(specifier) && SHARED_10_0_0.test(parent)) {
    return next(specifier, { ...context, parentURL: CLIENT_PARENT });
  }
  return next(specifier, context);
}
