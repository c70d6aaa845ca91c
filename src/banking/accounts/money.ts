// Exact decimal arithmetic on amount strings, in BigInt: money never passes through a JavaScript number.

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/

function parse(value: string): { units: bigint; scale: number } {
  const m = DECIMAL.exec(value)
  if (!m) throw new Error(`not a decimal string: ${value}`)
  const fraction = m[3] ?? ''
  const units = BigInt((m[2] ?? '0') + fraction)
  return { units: m[1] ? -units : units, scale: fraction.length }
}

function format(units: bigint, scale: number): string {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0')
  const whole = digits.slice(0, digits.length - scale)
  const fraction = scale > 0 ? '.' + digits.slice(digits.length - scale) : ''
  return (negative && units !== 0n ? '-' : '') + whole + fraction
}

/**
 * amount × rate, rounded half away from zero to `decimals` places, e.g. converting a balance at an exchange
 * rate. Returns undefined when the result has more than 16 integer digits (the spec's amount limit).
 */
export function convertAmount(amount: string, rate: string, decimals = 2): string | undefined {
  const a = parse(amount)
  const r = parse(rate)
  const product = a.units * r.units
  const scale = a.scale + r.scale
  let result: bigint
  if (scale <= decimals) {
    result = product * 10n ** BigInt(decimals - scale)
  } else {
    const divisor = 10n ** BigInt(scale - decimals)
    const magnitude = product < 0n ? -product : product
    const rounded = (magnitude + divisor / 2n) / divisor
    result = product < 0n ? -rounded : rounded
  }
  const text = format(result, decimals)
  return /^-?\d{1,16}(\.|$)/.test(text) ? text : undefined
}
