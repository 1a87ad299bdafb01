import { describe, expect, it } from 'vitest';
import { isPermitted, permissionStrings } from '../../src/rpc/auth/permissions.js';

describe('permission matching', () => {
  it('derives the three granting strings from the method name', () => {
    expect(permissionStrings('eth_getBlockByNumber').sort()).toEqual(
      ['*:*', 'eth:*', 'eth:getBlockByNumber'].sort(),
    );
    // every underscore becomes a colon; the prefix is the text before the first one
    expect(permissionStrings('priv_getEeaTransactionCount')).toContain('priv:*');
    expect(permissionStrings('a_b_c')).toContain('a:b:c');
  });

  it('grants *:*, group:* and group:method', () => {
    expect(isPermitted(['*:*'], 'ETH', 'eth_getBalance')).toBe(true);
    expect(isPermitted(['eth:*'], 'ETH', 'eth_getBalance')).toBe(true);
    expect(isPermitted(['eth:getBalance'], 'ETH', 'eth_getBalance')).toBe(true);
    expect(isPermitted(['net:*', 'eth:getBalance'], 'ETH', 'eth_getBalance')).toBe(true);
  });

  it('uses the name prefix, not the enabling group (priv_getEeaTransactionCount is EEA)', () => {
    expect(isPermitted(['priv:*'], 'EEA', 'priv_getEeaTransactionCount')).toBe(true);
    expect(isPermitted(['eea:*'], 'EEA', 'priv_getEeaTransactionCount')).toBe(false);
  });

  it('refuses prefixes, other wildcards, other case, empty lists and non-strings', () => {
    expect(isPermitted(['eth:getBal'], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted(['eth:get*'], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted(['eth:getBalance*'], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted(['*'], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted(['*:getBalance'], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted(['ETH:*'], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted(['eth:getbalance'], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted(['eth_getBalance'], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted([], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted([1, null, { a: 1 }], 'ETH', 'eth_getBalance')).toBe(false);
    expect(isPermitted(['net:*'], 'ETH', 'eth_getBalance')).toBe(false);
  });
});
