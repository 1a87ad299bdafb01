/** Alder's release version, reported by web3_clientVersion and admin_nodeInfo. */
export const VERSION = '0.1.0';
