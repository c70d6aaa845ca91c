// Serving a stored report over HTTP. Files are stored gzip-compressed: a client that accepts gzip gets the stored
// bytes as they are (Content-Encoding: gzip), byte ranges included; any other gets them decompressed as they are
// sent, ranges counted in the decompressed bytes. Each representation has its own strong ETag (the SHA-256 of the
// stored file, suffixed for gzip), so If-None-Match and If-Range resume a broken download of the same file.
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { BlobStore } from '../../platform/blobs/types.js'
import { internal } from '../../platform/errors.js'
import { EXTENSIONS, type ReportFormat } from '../reports/formats.js'
import type { InstanceRow } from '../reports/service.js'

/** True when the client lists gzip (or `*`) without q=0. */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '')
  for (const part of text.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    if (name.trim() !== 'gzip' && name.trim() !== 'x-gzip' && name.trim() !== '*') continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (!q || Number(q.slice(2)) > 0) return true
  }
  return false
}

/** A single `bytes=` range of a file of `size` bytes; undefined when absent or not one range (the whole file is sent). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!m || (m[1] === '' && m[2] === '')) return undefined
  if (m[1] === '') {
    const suffix = Number(m[2])
    if (suffix === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(m[1])
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  if (start >= size) return 'unsatisfiable'
  if (end < start) return undefined
  return { start, end }
}

/** Passes bytes `start`…`end` (inclusive) of what flows through, and ends there. */
function slice(start: number, end: number): Transform {
  let offset = 0
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const from = Math.max(0, start - offset)
      const to = Math.min(chunk.length, end - offset + 1)
      offset += chunk.length
      if (to > from) this.push(chunk.subarray(from, to))
      if (offset > end) this.push(null)
      done()
    },
  })
}

const CONTENT_TYPES: Record<ReportFormat, string> = { 'text/csv': 'text/csv; charset=utf-8', 'application/xml': 'application/xml; charset=utf-8', 'application/json': 'application/json; charset=utf-8' }

export async function sendReport(request: FastifyRequest, reply: FastifyReply, row: InstanceRow, blobs: BlobStore): Promise<FastifyReply> {
  if (!row.blob_key || row.sha256 === null || row.stored_bytes === null || row.content_bytes === null) throw internal('the completed report has no file')
  const gzip = acceptsGzip(request.headers['accept-encoding'])
  const etag = gzip ? `"${row.sha256}-gzip"` : `"${row.sha256}"`
  const size = gzip ? Number(row.stored_bytes) : Number(row.content_bytes)
  const format = row.report_mime_type as ReportFormat
  reply.headers({
    'content-type': CONTENT_TYPES[format] ?? 'application/octet-stream',
    'content-disposition': `attachment; filename="${row.report_name.replace(/[^A-Za-z0-9_ -]/g, '_')}.${EXTENSIONS[format] ?? 'dat'}"`,
    etag,
    'accept-ranges': 'bytes',
    vary: 'Accept-Encoding',
    'last-modified': new Date(row.completed_at ?? row.updated_at).toUTCString(),
    'cache-control': 'private, no-cache',
  })
  const ifNoneMatch = request.headers['if-none-match']
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*')) return reply.code(304).send()
  // If-Range with another validator: the file changed since the client's part; send it whole.
  const ifRange = request.headers['if-range']
  const range = ifRange !== undefined && ifRange !== etag ? undefined : parseRange(request.headers.range, size)
  if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${size}`).send()
  const { start, end } = range ?? { start: 0, end: size - 1 }
  if (gzip) reply.header('content-encoding', 'gzip')
  reply.header('content-length', String(Math.max(0, end - start + 1)))
  if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`)
  else reply.code(200)
  if (size === 0) return reply.send('')

  const stored = await blobs.get(row.blob_key, gzip ? { start, end } : undefined)
  if (!stored) throw internal('the report file is missing from the store')
  let body: Readable = stored.stream
  if (!gzip) {
    const gunzip = createGunzip({ chunkSize: 64 * 1024 })
    // A range of the decompressed file needs the bytes before it decompressed too; the whole file needs no cutting.
    const out = range ? slice(start, end) : gunzip
    ;(range ? pipeline(stored.stream, gunzip, out) : pipeline(stored.stream, gunzip)).catch((err: unknown) => out.destroy(err as Error))
    body = out
  }
  return reply.send(body)
}
