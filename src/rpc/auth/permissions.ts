/**
 * Permission matching as Besu does it. For a method `g_name` exactly three strings grant access:
 * `*:*`, `g:*` (g = the text before the first `_` of the method name, which is why
 * `priv_getEeaTransactionCount`, enabled by the EEA group, needs a `priv:` permission) and the method
 * name with every `_` replaced by `:` (`eth:getBlockByNumber`). A permission grants access only when it
 * equals one of them, case-sensitively: no other wildcards, no prefixes (`eth:getBal` grants nothing),
 * and an empty list grants nothing. Entries that are not strings are ignored.
 */

/** The permission strings that grant `methodName`. `group` is used only for a name without `_`. */
export function permissionStrings(methodName: string, group?: string): string[] {
  const underscore = methodName.indexOf('_');
  const prefix = underscore >= 0 ? methodName.slice(0, underscore) : group?.toLowerCase();
  const strings = ['*:*', methodName.replaceAll('_', ':')];
  if (prefix !== undefined && prefix !== '') strings.push(`${prefix}:*`);
  return strings;
}

export function isPermitted(permissions: readonly unknown[], group: string, methodName: string): boolean {
  if (!Array.isArray(permissions) || permissions.length === 0) return false;
  const granting = permissionStrings(methodName, group);
  for (const permission of permissions) {
    if (typeof permission === 'string' && granting.includes(permission)) return true;
  }
  return false;
}
