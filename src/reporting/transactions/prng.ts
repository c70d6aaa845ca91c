// A small seeded pseudo-random generator (sfc32, seeded through a string hash), so generated data is the same
// for a seed on every machine and Node version. Not for anything secret.

/** 32-bit FNV-1a style hash of a string, mixed; used to seed from text. */
export function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  return h >>> 0
}

export interface Random {
  /** A uniform float in [0, 1). */
  next(): number
  /** A uniform integer in [min, max]. */
  int(min: number, max: number): number
  /** True with probability p. */
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
  /** An item chosen by weight: [[item, weight], …]. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T
  /** `n` decimal digits as a string. */
  digits(n: number): string
}

export function createRandom(seed: string): Random {
  let a = hash32(`a:${seed}`)
  let b = hash32(`b:${seed}`)
  let c = hash32(`c:${seed}`)
  let d = 1
  const u32 = () => {
    a >>>= 0
    b >>>= 0
    c >>>= 0
    d >>>= 0
    const t = (a + b) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    d = (d + 1) | 0
    const r = (t + d) | 0
    c = (c + r) | 0
    return r >>> 0
  }
  for (let i = 0; i < 12; i++) u32()
  const next = () => u32() / 4294967296
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    weighted(entries) {
      const total = entries.reduce((s, [, w]) => s + w, 0)
      let r = next() * total
      for (const [item, w] of entries) {
        if ((r -= w) < 0) return item
      }
      return entries[entries.length - 1]![0]
    },
    digits(n) {
      let s = ''
      for (let i = 0; i < n; i++) s += String(Math.floor(next() * 10))
      return s
    },
  }
  return random
}
