/**
 * Password hashing for the RPC credentials file, interchangeable with Besu's:
 * Besu writes bcrypt hashes with the `$2a$` prefix and cost 10 (`$2a$10$` + 53 chars), and accepts
 * `$2a$`, `$2b$` and `$2y$` when verifying. bcryptjs generates `$2b$` salts; for passwords of at most
 * 72 bytes (all bcrypt ever reads) the three minor versions compute the same digest, so we hash with a
 * `$2a$` salt and keep Besu's on-disk form.
 */
import bcrypt from 'bcryptjs';

const COST = 10;
const HASH_SHAPE = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

export async function hashPassword(password: string): Promise<string> {
  const salt = (await bcrypt.genSalt(COST)).replace(/^\$2b\$/, '$2a$');
  return bcrypt.hash(password, salt);
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  if (typeof hash !== 'string' || !HASH_SHAPE.test(hash)) return false;
  try {
    return await bcrypt.compare(password, hash);
  } catch {
    return false;
  }
}
