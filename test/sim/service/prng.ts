/** A small seeded PRNG (mulberry32) so the catalog and injected faults are reproducible. */
export interface Rng {
  next(): number; // [0, 1)
  int(min: number, max: number): number; // inclusive
  pick<T>(items: readonly T[]): T;
  hex(len: number): string;
  uuid(): string;
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const hex = (len: number) => {
    let s = "";
    while (s.length < len) s += Math.floor(next() * 16).toString(16);
    return s.toUpperCase();
  };
  return {
    next,
    int,
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error("pick from an empty list");
      return item;
    },
    hex,
    uuid: () => `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`,
  };
}
