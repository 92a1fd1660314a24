import { createHash } from 'node:crypto';

/**
 * Where a caller falls in a skill's ramp: 0–99, the same for a caller and a skill every time (so a
 * ramp is sticky per caller), independent from one skill to another, and about uniform over
 * callers, so that a ramp at `percent` takes the callers whose bucket is below it: about that
 * share of them, and, as the ramp grows, the same ones plus more.
 */
export function rolloutBucket(callerId: string, skillId: string): number {
  // The skill id's length first: no two (caller, skill) pairs hash the same text.
  const digest = createHash('sha256').update(`${skillId.length}:${skillId}:${callerId}`).digest();
  return digest.readUInt32BE(0) % 100;
}
