/** The text of an ABI `Error(string)` revert, or undefined for any other revert data. */
export function decodeRevertText(data: Uint8Array): string | undefined {
  if (data.length < 4 + 64 || data[0] !== 0x08 || data[1] !== 0xc3 || data[2] !== 0x79 || data[3] !== 0xa0)
    return undefined;
  const body = data.subarray(4);
  const word = (at: number): number | undefined => {
    if (at + 32 > body.length) return undefined;
    let v = 0;
    for (let i = at; i < at + 32; i++) {
      v = v * 256 + (body[i] as number);
      if (v > Number.MAX_SAFE_INTEGER) return undefined;
    }
    return v;
  };
  const offset = word(0);
  if (offset === undefined) return undefined;
  const length = word(offset);
  if (length === undefined || offset + 32 + length > body.length) return undefined;
  return new TextDecoder().decode(body.subarray(offset + 32, offset + 32 + length));
}
