// A recorded call's journey to its row, shared by the event loop's thread and the writer thread: each call is kept in
// a batch as it ends (CallBatch: its numbers and its strings' lengths in a typed array, its strings as they are, put
// side by side into one text a few dozen calls at a time), the batch is handed to the thread (the numbers transferred,
// the texts copied: a few strings a batch, not an object a call, which cost about 2.6 µs a call to clone), and the
// thread cuts the texts back into rows by the lengths.

/** A call as buffered: its time as milliseconds, made into text only when its batch is written. */
export interface BufferedCall {
  atMs: number
  organizationId: string | null
  method: string
  path: string
  status: number
  durationUs: number
  correlationId: string
  scheme: string
  keyId: string | null
}

/** The columns a call's row is written with (its id is the database's: migration 0025). */
export const COLUMNS = ['at', 'organization_id', 'method', 'path', 'status', 'duration_us', 'correlation_id', 'scheme', 'key_id'] as const

/** Strings per call in a batch's texts, in this order: organization, method, path, correlation id, scheme, key id. */
const STRINGS = 6
/**
 * Numbers per call in a batch's `numbers`: time (ms), status, duration (µs), then each string's length in UTF-16 code
 * units (-1: null). The strings are put side by side with nothing between them: no character a caller could send
 * (a path, a key's id) can break a row apart, and nothing is escaped. JSON texts of the strings cost the event loop
 * about 2,300 instructions a call, half of the log's whole cost (callgrind, docs/benchmarks.md).
 */
const NUMBERS = 3 + STRINGS
/**
 * Calls whose strings are made into one text at a time: a call's strings are only referenced until then, a few
 * milliseconds under load, so that they die young instead of being promoted with a batch that waits a quarter second.
 */
const TEXT_CALLS = 64

/** A batch as handed to a writer: `count` calls' numbers and lengths, and their strings side by side in texts. */
export interface SealedBatch {
  count: number
  numbers: Float64Array
  texts: string[]
}

/**
 * Calls as the event loop keeps them, at the least cost on the request's path (about half of what writing each call's
 * strings into a batch's bytes cost: docs/benchmarks.md, "The request log's cost"): the numbers and lengths in a typed
 * array, the strings kept as they are and put into one text per TEXT_CALLS calls by one native call.
 */
export class CallBatch {
  readonly numbers: Float64Array
  private readonly texts: string[] = []
  private strings: (string | null)[] = []
  count = 0

  constructor(readonly capacity: number) {
    this.numbers = new Float64Array(capacity * NUMBERS)
  }

  get full(): boolean {
    return this.count >= this.capacity
  }

  /** Appends the call (the caller checks `full` first). */
  add(call: BufferedCall): void {
    const n = this.numbers
    const at = this.count * NUMBERS
    const { organizationId, method, path, correlationId, scheme, keyId } = call
    n[at] = call.atMs
    n[at + 1] = call.status
    n[at + 2] = Math.min(call.durationUs, 0xffffffff)
    n[at + 3] = organizationId === null ? -1 : organizationId.length
    n[at + 4] = method.length
    n[at + 5] = path.length
    n[at + 6] = correlationId.length
    n[at + 7] = scheme.length
    n[at + 8] = keyId === null ? -1 : keyId.length
    // A null is joined as nothing; its length of -1 tells it from an empty string.
    const s = this.strings
    s.push(organizationId, method, path, correlationId, scheme, keyId)
    this.count++
    if (s.length >= TEXT_CALLS * STRINGS) this.text()
  }

  /** The batch for a writer: its last strings made into text too. The batch is not added to after. */
  seal(): SealedBatch {
    this.text()
    return { count: this.count, numbers: this.numbers, texts: this.texts }
  }

  private text(): void {
    if (this.strings.length === 0) return
    this.texts.push(this.strings.join(''))
    this.strings = []
  }
}

/** A row's values in COLUMNS' order, as bound to the INSERT: the time as ISO-8601 text, the rest as recorded. */
export type RowValues = [
  at: string,
  organizationId: string | null,
  method: string,
  path: string,
  status: number,
  durationUs: number,
  correlationId: string,
  scheme: string,
  keyId: string | null,
]

/**
 * The rows of a batch, in the order the calls ended (the database numbers them in that order as it appends them),
 * straight to the values bound, with no object per call. The strings are cut from the texts by their lengths; a batch
 * whose lengths and texts disagree is refused whole rather than written with its calls' strings shifted.
 */
export function decodeRows(batch: SealedBatch): RowValues[] {
  const { numbers, count } = batch
  const text = batch.texts.join('')
  if (numbers.length < count * NUMBERS) throw new Error(`a request log batch of ${count} calls held the numbers of ${Math.floor(numbers.length / NUMBERS)}`)
  let expected = 0
  for (let call = 0; call < count; call++) for (let j = 3; j < NUMBERS; j++) expected += Math.max(numbers[call * NUMBERS + j]!, 0)
  if (expected !== text.length) throw new Error(`a request log batch of ${count} calls held ${text.length} characters of text, not ${expected}`)
  const rows: RowValues[] = []
  // The time's text up to its milliseconds, kept for the second it belongs to: a batch's calls share a few seconds.
  let second = Number.NaN
  let prefix = ''
  let pos = 0
  const next = (length: number): string | null => {
    if (length < 0) return null
    const s = text.slice(pos, pos + length)
    pos += length
    return s
  }
  for (let call = 0; call < count; call++) {
    const at = call * NUMBERS
    const atMs = Math.floor(numbers[at]!)
    const sec = Math.floor(atMs / 1000)
    if (sec !== second) {
      second = sec
      prefix = new Date(sec * 1000).toISOString().slice(0, -4)
    }
    const time = `${prefix}${String(atMs - sec * 1000).padStart(3, '0')}Z`
    const organizationId = next(numbers[at + 3]!)
    const method = next(numbers[at + 4]!)!
    const path = next(numbers[at + 5]!)!
    const correlationId = next(numbers[at + 6]!)!
    const scheme = next(numbers[at + 7]!)!
    const keyId = next(numbers[at + 8]!)
    rows.push([time, organizationId, method, path, numbers[at + 1]!, numbers[at + 2]!, correlationId, scheme, keyId])
  }
  return rows
}
