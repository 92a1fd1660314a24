import type { SkillContext } from '@skillrun/skill';

const SEGMENT = 1 << 20;

/** A segmented sieve, so memory stays small and the signal is checked between segments. */
export async function execute({ below }: { below: number }, ctx: SkillContext) {
  const root = Math.floor(Math.sqrt(below));
  const small = sieve(root + 1);
  const basePrimes = small.flatMap((isPrime, n) => (isPrime ? [n] : []));
  let count = 0;
  let largest: number | null = null;
  for (let low = 0; low < below; low += SEGMENT) {
    ctx.signal.throwIfAborted();
    const high = Math.min(low + SEGMENT, below);
    const composite = new Uint8Array(high - low);
    for (const p of basePrimes) {
      for (let multiple = Math.max(p * p, Math.ceil(low / p) * p); multiple < high; multiple += p) {
        composite[multiple - low] = 1;
      }
    }
    for (let n = Math.max(low, 2); n < high; n++) {
      if (!composite[n - low]) {
        count++;
        largest = n;
      }
    }
    ctx.progress(Math.round((high / below) * 100));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { below, count, largest };
}

function sieve(size: number): boolean[] {
  const isPrime = Array.from({ length: size }, (_, n) => n >= 2);
  for (let p = 2; p * p < size; p++) {
    if (isPrime[p]) for (let m = p * p; m < size; m += p) isPrime[m] = false;
  }
  return isPrime;
}
