/**
 * An empty array whose elements kind is already V8's "packed, any value": the kind an array reaches
 * once an object is pushed into it. A plain `[]` starts as a small-integer array, and `map` over an
 * empty array gives a holey one, so an empty list and a filled one would have different shapes and
 * optimised code that reads lists of both kinds (a transaction's logs: most transfers have none, token
 * transfers one) is thrown away and compiled again when the kind it has not seen first turns up.
 * Starting every such list from here gives them all one shape.
 */
export function objectList<T extends object>(): T[] {
  const list: object[] = [PLACEHOLDER];
  list.pop();
  return list as T[];
}

const PLACEHOLDER = {};
