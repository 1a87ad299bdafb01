// Loaded with `node --import` before the EthereumJS client: installs ethereumjs-hooks.mjs.
import { register } from 'node:module';

register('./ethereumjs-hooks.mjs', import.meta.url);
