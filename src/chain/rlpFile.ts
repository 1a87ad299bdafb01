/**
 * Files of concatenated block RLP, as geth and Besu export them. Reading yields each block's
 * bytes; a truncated or malformed tail is reported with its byte offset.
 */
import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { RLP } from '@ethereumjs/rlp';

/** A block file that cannot be read as blocks; the message names the file and the byte offset. */
export class BlockFileError extends Error {
  override name = 'BlockFileError';
}

/** Length of the RLP item starting at `buf[0]`, or undefined when more bytes are needed. */
function itemLength(buf: Uint8Array, offset: number, available: number): number | undefined {
  if (available < 1) return undefined;
  const b = buf[offset];
  if (b < 0xc0) throw new Error(`expected an RLP list, found byte 0x${b.toString(16).padStart(2, '0')}`);
  if (b <= 0xf7) return 1 + (b - 0xc0);
  const lenOfLen = b - 0xf7;
  if (available < 1 + lenOfLen) return undefined;
  let len = 0;
  for (let i = 0; i < lenOfLen; i++) len = len * 256 + buf[offset + 1 + i];
  return 1 + lenOfLen + len;
}

export function* readBlockFile(path: string): Generator<{ rlp: Uint8Array; offset: number }> {
  let size: number;
  let fd: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error('not a regular file');
    size = stat.size;
    fd = openSync(path, 'r');
  } catch (err) {
    throw new BlockFileError(`${path}: cannot read the block file: ${(err as Error).message}`);
  }
  try {
    let buf = new Uint8Array(Math.min(Math.max(size, 1), 16 << 20));
    let start = 0; // offset in buf of the next unread byte
    let end = 0; // bytes valid in buf
    let fileOffset = 0; // file offset of buf[start]
    let eof = false;
    for (;;) {
      let len: number | undefined;
      try {
        if (end > start) len = itemLength(buf, start, end - start);
      } catch (err) {
        throw new BlockFileError(`${path}: not block RLP at byte ${fileOffset}: ${(err as Error).message}`);
      }
      if (len !== undefined && end - start >= len) {
        yield { rlp: buf.slice(start, start + len), offset: fileOffset };
        start += len;
        fileOffset += len;
        continue;
      }
      if (eof) {
        if (end > start) throw new BlockFileError(`${path}: truncated block data at byte ${fileOffset}`);
        return;
      }
      // Need more bytes: compact and grow if needed.
      if (start > 0) {
        buf.copyWithin(0, start, end);
        end -= start;
        start = 0;
      }
      if (len !== undefined && len > buf.length) {
        const bigger = new Uint8Array(len * 2);
        bigger.set(buf.subarray(0, end));
        buf = bigger;
      }
      const n = readSync(fd, buf, end, buf.length - end, null);
      if (n === 0) eof = true;
      end += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the whole file once and checks that it is a sequence of blocks in shape (each item a list
 * whose first element, the header, is a list), so a bad file is refused before anything is written.
 * Returns the number of blocks. Block contents are checked later, by the importer.
 */
export function checkBlockFile(path: string): number {
  let count = 0;
  for (const { rlp, offset } of readBlockFile(path)) {
    let decoded: unknown;
    try {
      decoded = RLP.decode(rlp);
    } catch (err) {
      throw new BlockFileError(
        `${path}: malformed RLP in the block at byte ${offset}: ${(err as Error).message}`,
      );
    }
    if (!Array.isArray(decoded) || decoded.length < 2 || !Array.isArray(decoded[0]))
      throw new BlockFileError(`${path}: the item at byte ${offset} is not a block (header, transactions…)`);
    count++;
  }
  return count;
}

export function writeBlockFile(path: string, blocks: Iterable<Uint8Array>): number {
  const fd = openSync(path, 'w');
  let count = 0;
  try {
    for (const b of blocks) {
      writeSync(fd, b);
      count++;
    }
  } finally {
    closeSync(fd);
  }
  return count;
}
