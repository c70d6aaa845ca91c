// Exact decimal arithmetic on amount strings, in BigInt: amounts never pass through a JavaScript number. Used by
// the generator (fees, conversions) and by reports summing amounts stored as decimal text.

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/

export interface Decimal {
  units: bigint
  scale: number
}

export function parseDecimal(value: string): Decimal {
  const m = DECIMAL.exec(value)
  if (!m) throw new Error(`not a decimal string: ${value}`)
  const fraction = m[3] ?? ''
  const units = BigInt(m[2]! + fraction)
  return { units: m[1] ? -units : units, scale: fraction.length }
}

export function formatDecimal({ units, scale }: Decimal): string {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0')
  const whole = digits.slice(0, digits.length - scale)
  const fraction = scale > 0 ? '.' + digits.slice(digits.length - scale) : ''
  return (negative && units !== 0n ? '-' : '') + whole + fraction
}

/** `value` with exactly `scale` decimals, rounded half away from zero when decimals are dropped. */
export function rescale(value: Decimal, scale: number): Decimal {
  if (scale >= value.scale) return { units: value.units * 10n ** BigInt(scale - value.scale), scale }
  const divisor = 10n ** BigInt(value.scale - scale)
  const magnitude = value.units < 0n ? -value.units : value.units
  const rounded = (magnitude + divisor / 2n) / divisor
  return { units: value.units < 0n ? -rounded : rounded, scale }
}

/** The exact sum of decimal strings, with the largest scale among them (`"0.1" + "0.2"` is `"0.3"`). */
export function sumDecimals(values: Iterable<string>): string {
  const total = new DecimalSum()
  for (const value of values) total.add(value)
  return total.toString()
}

/** A running exact sum (what sumDecimals does), for adding many values one at a time without re-parsing the total. */
export class DecimalSum {
  #total: Decimal = { units: 0n, scale: 0 }

  add(value: string): this {
    const d = parseDecimal(value)
    const total = this.#total
    if (d.scale === total.scale) total.units += d.units
    else if (d.scale < total.scale) total.units += d.units * 10n ** BigInt(total.scale - d.scale)
    else this.#total = { units: total.units * 10n ** BigInt(d.scale - total.scale) + d.units, scale: d.scale }
    return this
  }

  toString(): string {
    return formatDecimal(this.#total)
  }
}

/** a × b rounded half away from zero to `scale` decimals (a rate times an amount, a fee). */
export function multiply(a: string, b: string, scale: number): string {
  const x = parseDecimal(a)
  const y = parseDecimal(b)
  return formatDecimal(rescale({ units: x.units * y.units, scale: x.scale + y.scale }, scale))
}

/** a − b, exactly. */
export function subtract(a: string, b: string): string {
  const x = parseDecimal(b)
  return sumDecimals([a, formatDecimal({ units: -x.units, scale: x.scale })])
}

/** An integer count of minor units as a decimal string: `fromMinorUnits(1999n, 2)` is `"19.99"`. */
export function fromMinorUnits(units: bigint, scale: number): string {
  return formatDecimal({ units, scale })
}
