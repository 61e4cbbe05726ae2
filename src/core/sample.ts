// A seeded random sample (xorshift32 + partial Fisher-Yates): verify and the backup read-back pick
// the ranges they re-hash with it, so a run can be repeated with the same --seed.
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

/** `n` items of `items` chosen at random (all of them when n >= length); `items` is not changed. */
export function sample<T>(items: readonly T[], n: number, seed: number): T[] {
  const a = items.slice();
  const want = Math.max(0, Math.min(a.length, n));
  const rand = seededRandom(seed);
  for (let i = 0; i < want; i++) {
    const j = i + Math.floor(rand() * (a.length - i));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, want);
}
