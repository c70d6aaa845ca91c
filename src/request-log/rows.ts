// A recorded call's journey to its row, shared by the event loop's thread and the writer thread: each call is kept in
// a batch as it ends (CallBatch: its numbers in a typed array, its strings as they are, made into JSON texts a few
// dozen calls at a time), the batch is handed to the thread (the numbers transferred, the texts copied: a few strings
// a batch, not an object a call, which cost about 2.6 µs a call to clone), and the thread decodes it into rows.

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

/** Numbers per call in a batch's `numbers`: time (ms), status, duration (µs). */
const NUMBERS = 3
/** Strings per call in a batch's texts, in this order: organization, method, path, correlation id, scheme, key id. */
const STRINGS = 6
/**
 * Calls whose strings are made into one JSON text at a time: a call's strings are only referenced until then, a few
 * milliseconds under load, so that they die young instead of being promoted with a batch that waits a quarter second.
 */
const TEXT_CALLS = 64

/** A batch as handed to a writer: `count` calls' numbers, and their strings as JSON arrays. */
export interface SealedBatch {
  count: number
  numbers: Float64Array
  texts: string[]
}

/**
 * Calls as the event loop keeps them, at the least cost on the request's path (about half of what writing each call's
 * strings into a batch's bytes cost: docs/benchmarks.md, "The request log's cost"): the numbers in a typed array, the
 * strings kept as they are and made into one JSON text per TEXT_CALLS calls by one native call.
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
    const at = this.count * NUMBERS
    this.numbers[at] = call.atMs
    this.numbers[at + 1] = call.status
    this.numbers[at + 2] = Math.min(call.durationUs, 0xffffffff)
    const s = this.strings
    s.push(call.organizationId, call.method, call.path, call.correlationId, call.scheme, call.keyId)
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
    this.texts.push(JSON.stringify(this.strings))
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
 * straight to the values bound, with no object per call.
 */
export function decodeRows(batch: SealedBatch): RowValues[] {
  const { numbers } = batch
  const rows: RowValues[] = []
  // The time's text up to its milliseconds, kept for the second it belongs to: a batch's calls share a few seconds.
  let second = Number.NaN
  let prefix = ''
  let call = 0
  for (const text of batch.texts) {
    const s = JSON.parse(text) as (string | null)[]
    for (let i = 0; i < s.length; i += STRINGS, call++) {
      const atMs = Math.floor(numbers[call * NUMBERS]!)
      const sec = Math.floor(atMs / 1000)
      if (sec !== second) {
        second = sec
        prefix = new Date(sec * 1000).toISOString().slice(0, -4)
      }
      const time = `${prefix}${String(atMs - sec * 1000).padStart(3, '0')}Z`
      rows.push([time, s[i] as string | null, s[i + 1]!, s[i + 2]!, numbers[call * NUMBERS + 1]!, numbers[call * NUMBERS + 2]!, s[i + 3]!, s[i + 4]!, s[i + 5] as string | null])
    }
  }
  if (call !== batch.count) throw new Error(`a request log batch of ${batch.count} calls held the strings of ${call}`)
  return rows
}
