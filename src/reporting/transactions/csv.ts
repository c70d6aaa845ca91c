// One CSV line (RFC 4180 quoting: `"a,b"`, `""` for a quote) into its cells. A record is one line: a quoted
// cell may not hold a line break, so a file can be read line by line without buffering records.

export class CsvError extends Error {}

export function parseCsvLine(line: string): string[] {
  const cells: string[] = []
  let i = 0
  for (;;) {
    if (line[i] === '"') {
      let value = ''
      i++
      for (;;) {
        const q = line.indexOf('"', i)
        if (q < 0) throw new CsvError('a quoted cell is not closed (a line break inside a quoted cell is not supported)')
        value += line.slice(i, q)
        if (line[q + 1] === '"') {
          value += '"'
          i = q + 2
        } else {
          i = q + 1
          break
        }
      }
      if (i < line.length && line[i] !== ',') throw new CsvError(`unexpected text after a quoted cell at column ${cells.length + 1}`)
      cells.push(value)
    } else {
      const comma = line.indexOf(',', i)
      const end = comma < 0 ? line.length : comma
      const value = line.slice(i, end)
      if (value.includes('"')) throw new CsvError(`a quote inside an unquoted cell at column ${cells.length + 1}`)
      cells.push(value)
      i = end
    }
    if (i >= line.length) return cells
    i++ // the comma
  }
}

/** A cell as CSV writes it: quoted when it holds a comma, a quote or starts with a space. */
export function csvCell(value: string): string {
  return /[",\r\n]|^\s/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}
