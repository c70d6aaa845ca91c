// What a person sees when the server or a command cannot start: one line naming the setting at fault and what to
// do, never a stack and never a secret. Anything not recognised here is an unexpected failure, and keeps its stack.
import { maskUrlPassword } from './config.js'

interface SystemError {
  code?: string
  errno?: number
  syscall?: string
  address?: string
  port?: number
  path?: string
  message?: string
  cause?: unknown
}

/** The error and its causes, outermost first (a migration failure wraps the connection's). */
function chain(err: unknown): SystemError[] {
  const out: SystemError[] = []
  for (let e = err; e && typeof e === 'object' && out.length < 5; e = (e as SystemError).cause) out.push(e as SystemError)
  return out
}

const PG_UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'])
/** PostgreSQL's SQLSTATEs for a refused sign-in and a missing database. */
const PG_REFUSED: Record<string, string> = { '28P01': 'the password was refused', '28000': 'the role may not sign in', '3D000': 'the database does not exist' }
const FS_TROUBLE: Record<string, string> = {
  ENOTDIR: 'a file stands where a directory of its path should be',
  EEXIST: 'a file stands where a directory of its path should be',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
}

/**
 * One line for a failure to start that a setting can fix, or undefined. `databaseUrl` is the configured one, shown
 * with its password masked.
 */
export function describeStartupFailure(err: unknown, settings: { databaseUrl?: string; host?: string; port?: number }): string | undefined {
  const causes = chain(err)
  const db = settings.databaseUrl
  for (const e of causes) {
    if (e.code === 'EADDRINUSE' && e.syscall === 'listen') {
      return `port ${e.port ?? settings.port} on ${e.address ?? settings.host} is already in use: stop the other server, or set PORT to a free port`
    }
    if ((e.code === 'EACCES' || e.code === 'EPERM') && e.syscall === 'listen') {
      return `not allowed to listen on port ${e.port ?? settings.port}: set PORT to 1024 or above (lower ports need privileges)`
    }
    if (e.code === 'EADDRNOTAVAIL' && e.syscall === 'listen') return `HOST=${settings.host} is not an address of this machine: set HOST to one (127.0.0.1, 0.0.0.0)`
    if (db?.startsWith('postgres') && e.code && PG_UNREACHABLE.has(e.code)) {
      return `cannot reach PostgreSQL at ${maskUrlPassword(db)} (${e.code}): check DATABASE_URL and that the server is running and accepts connections`
    }
    if (db?.startsWith('postgres') && e.code && PG_REFUSED[e.code]) {
      return `PostgreSQL at ${maskUrlPassword(db)} refused the connection: ${PG_REFUSED[e.code]}; check DATABASE_URL`
    }
    if (db?.startsWith('sqlite:') && e.code && FS_TROUBLE[e.code]) {
      return `cannot open the SQLite database ${db.slice('sqlite:'.length)}: ${FS_TROUBLE[e.code]}${e.path ? ` (${e.path})` : ''}; set DATABASE_URL=sqlite:<path> to a file in a writable directory`
    }
    if (db?.startsWith('sqlite:') && e.code === 'SQLITE_CANTOPEN') {
      return `cannot open the SQLite database ${db.slice('sqlite:'.length)}: its directory is not writable or the path is a directory; set DATABASE_URL=sqlite:<path> to a file in a writable directory`
    }
    if (db?.startsWith('sqlite:') && (e.code === 'SQLITE_READONLY' || e.code === 'SQLITE_READONLY_DIRECTORY')) {
      return `the SQLite database ${db.slice('sqlite:'.length)} is read-only: make it and its directory writable, or set DATABASE_URL to another file`
    }
  }
  return undefined
}
