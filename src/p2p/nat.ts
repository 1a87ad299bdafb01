/**
 * `--nat-method=AUTO`, as Besu resolves it: DOCKER when the node runs in a Docker container (a
 * `/docker` line in `/proc/1/cgroup`, or `/.dockerenv`), NONE otherwise. Alder has no DOCKER (or UPnP)
 * NAT manager, so AUTO always advertises what NONE advertises; when it detects Docker the node says so
 * at start, since Besu would have advertised the Docker host's address instead.
 */
import { existsSync, readFileSync } from 'node:fs';

export type DetectedNat = 'NONE' | 'DOCKER';

export function detectNatMethod(
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
  exists: (path: string) => boolean = existsSync,
): DetectedNat {
  let cgroup: string;
  try {
    cgroup = read('/proc/1/cgroup');
  } catch {
    return 'NONE';
  }
  if (cgroup.split('\n').some((line) => line.includes('/docker'))) return 'DOCKER';
  return exists('/.dockerenv') ? 'DOCKER' : 'NONE';
}
