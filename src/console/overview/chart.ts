// A bar chart as inline SVG markup: one bar a day, drawn from exact decimal text (heights from BigInt ratios, so no
// amount ever becomes a float), with a title and a text alternative for screen readers. Presentation attributes
// only: the page's CSP allows no inline style.
import { parseDecimal, rescale } from '../../reporting/transactions/decimal.js'
import { html, type Html } from '../layout.js'

export interface Bar {
  /** The day, YYYY-MM-DD. */
  label: string
  /** Exact decimal text (an amount) or an integer (a count). */
  value: string
}

const WIDTH = 600
const HEIGHT = 160

/** Each value as integer units at the largest scale among them. */
function units(values: readonly string[]): bigint[] {
  const parsed = values.map(parseDecimal)
  const scale = Math.max(0, ...parsed.map((d) => d.scale))
  return parsed.map((d) => rescale(d, scale).units)
}

export function barChart(title: string, bars: readonly Bar[], summary: string): Html {
  const values = units(bars.map((b) => b.value))
  const abs = values.map((v) => (v < 0n ? -v : v))
  const max = abs.reduce((a, b) => (b > a ? b : a), 0n)
  const hasNegative = values.some((v) => v < 0n)
  // The zero line: in the middle when some days are negative (net funding can be), else at the bottom.
  const zero = hasNegative ? HEIGHT / 2 : HEIGHT
  const room = hasNegative ? HEIGHT / 2 : HEIGHT
  const step = WIDTH / Math.max(1, bars.length)
  const rects = bars.map((bar, i) => {
    const height = max === 0n ? 0 : Number((abs[i]! * BigInt(room)) / max)
    const y = values[i]! < 0n ? zero : zero - height
    return html`<rect x="${(i * step + 1).toFixed(1)}" y="${y}" width="${Math.max(1, step - 2).toFixed(1)}" height="${height}" fill="${values[i]! < 0n ? '#b3261e' : '#0b57d0'}"><title>${bar.label}: ${bar.value}</title></rect>`
  })
  return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-label="${title}: ${summary}" focusable="false">
<line x1="0" y1="${zero}" x2="${WIDTH}" y2="${zero}" stroke="#8c959f" stroke-width="1"/>
${rects}
</svg>`
}
