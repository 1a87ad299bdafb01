/**
 * `--network=pos-dev`: a proof-of-stake development chain. Every fork the libraries run is active from
 * genesis (Paris through Prague, and Osaka), so contracts compiled by a current solc (PUSH0, MCOPY,
 * transient storage, blob opcodes) deploy; blocks come through the same engine path a consensus client
 * drives (`consensus/merge/devDriver.ts` plays the consensus client inside the node). Chain id 1337,
 * network id 1337, the system contracts of EIP-4788, EIP-2935, EIP-7002 and EIP-7251 in the genesis
 * state, and Besu's three prefunded development accounts (`--network=dev`'s; public test keys, never
 * for use outside a local chain). `--network=dev` stays Besu's London proof-of-work chain.
 */
import { DEV_GENESIS } from './dev.js';

/** The EIP system contracts (deployed bytecode from the EIPs), at nonce 1 as their deployments leave them. */
export const SYSTEM_CONTRACTS = {
  // EIP-4788 beacon roots
  '000f3df6d732807ef1319fb7b8bb8522d0beac02': {
    balance: '0x0',
    nonce: '0x1',
    code: '0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500',
  },
  // EIP-2935 block hashes
  '0000f90827f1c53a10cb7a02335b175320002935': {
    balance: '0x0',
    nonce: '0x1',
    code: '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500',
  },
  // EIP-7002 withdrawal requests
  '00000961ef480eb55e80d19ad83579a64c007002': {
    balance: '0x0',
    nonce: '0x1',
    code: '0x3373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd',
  },
  // EIP-7251 consolidations
  '0000bbddc7ce488642fb579f8b00f3a590007251': {
    balance: '0x0',
    nonce: '0x1',
    code: '0x3373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd',
  },
} as const;

export const POS_DEV_GENESIS = {
  config: {
    chainId: 1337,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    terminalTotalDifficulty: 0,
    shanghaiTime: 0,
    cancunTime: 0,
    pragueTime: 0,
    osakaTime: 0,
    blobSchedule: {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    },
    depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
  },
  nonce: '0x0',
  timestamp: '0x0',
  extraData: '0x',
  gasLimit: '0x2255100',
  difficulty: '0x0',
  baseFeePerGas: '0x3b9aca00',
  mixHash: '0x0000000000000000000000000000000000000000000000000000000000000000',
  coinbase: '0x0000000000000000000000000000000000000000',
  alloc: { ...DEV_GENESIS.alloc, ...SYSTEM_CONTRACTS },
} as const;
