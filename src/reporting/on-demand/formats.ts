// Response formats of the on-demand reports: which one an `Accept` header asks for, and the small pieces of CSV
// (RFC 4180) and XML writing the report renderers share. Pure.
import { csvCell } from '../csv-cell.js'

export type Format = 'json' | 'csv' | 'xml'

export interface Negotiated {
  format: Format
  contentType: string
}

const JSON_TYPE = 'application/json; charset=utf-8'
const HAL_TYPE = 'application/hal+json; charset=utf-8'

/**
 * The format of an answer. CSV (`text/csv`) and XML (`application/xml`, `text/xml`) are given where `offered`;
 * everything else, an absent header and types no report is written in included, gets the documented default,
 * JSON, rather than a 406: the spec makes JSON the default and lists no 406. JSON is labelled
 * `application/hal+json` when that is what was asked for (the official SDK asks for it), else `application/json`.
 */
export function negotiate(accept: string | undefined, offered: readonly Format[] = ['json']): Negotiated {
  const ranges = (accept ?? '')
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase())
      const q = params.find((p) => p.startsWith('q='))
      return { type, q: q === undefined ? 1 : Number(q.slice(2)) || 0, index }
    })
    .filter((r) => r.type && r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
  for (const { type } of ranges) {
    if (type === 'text/csv' && offered.includes('csv')) return { format: 'csv', contentType: 'text/csv; charset=utf-8' }
    if ((type === 'application/xml' || type === 'text/xml') && offered.includes('xml')) return { format: 'xml', contentType: 'application/xml; charset=utf-8' }
    if (type === 'application/hal+json') return { format: 'json', contentType: HAL_TYPE }
    if (type === 'application/json' || type.endsWith('+json') || type === 'application/*' || type === '*/*') return { format: 'json', contentType: JSON_TYPE }
  }
  return { format: 'json', contentType: JSON_TYPE }
}

// One CSV cell, quoted and with formulas neutralized, as report files write them too.
export { csvCell }

/** One CSV record, CRLF-terminated as RFC 4180 writes them. */
export function csvLine(cells: readonly (string | number | undefined)[]): string {
  return cells.map(csvCell).join(',') + '\r\n'
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

/** Text for an XML attribute or element; characters XML 1.0 cannot hold at all are dropped. */
export function xmlText(value: string | number): string {
  // eslint-disable-next-line no-control-regex -- exactly the control characters XML 1.0 forbids
  return String(value).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!)
}

/** ` Name="value"` for each present value, names as given. */
export function xmlAttributes(attributes: Readonly<Record<string, string | number | undefined>>): string {
  let out = ''
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) out += ` ${name}="${xmlText(value)}"`
  return out
}

/** A JSON member name as an XML name: `cybersourceBatchId` → `CybersourceBatchID`. */
export function xmlName(key: string): string {
  return (key[0]!.toUpperCase() + key.slice(1)).replace(/Id$/, 'ID')
}

/** An object's present text and number members as attributes, their names as xmlName writes them. */
export function xmlMembers(members: object): string {
  const attributes: Record<string, string | number | undefined> = {}
  for (const [key, value] of Object.entries(members)) if (typeof value === 'string' || typeof value === 'number') attributes[xmlName(key)] = value
  return xmlAttributes(attributes)
}

/** `<Name a="…" …/>` from an object's members. */
export function xmlEmpty(name: string, members: object): string {
  return `<${name}${xmlMembers(members)}/>`
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
