// The jobs facility across real OS processes on one PostgreSQL database: two workers draining one queue never
// run a job twice, and a worker killed with SIGKILL mid-job loses its claim when the lease lapses, so another
// process runs the job again. SQLite allows one writer at a time in one file, so these are PostgreSQL's tests.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../src/platform/clock.js'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { createJobs } from '../src/platform/jobs/service.js'
import { createTestDatabase, TEST_DIALECT, type TestDatabase, migrate } from './support/database.js'

const WORKER = fileURLToPath(new URL('./support/jobs-worker.ts', import.meta.url))
const onSqlite = TEST_DIALECT === 'sqlite'
if (onSqlite) {
  console.warn('!! test/jobs-processes.test.ts SKIPPED on SQLite: concurrent worker processes need PostgreSQL (run with TEST_PG_ADMIN_URL, as npm test does)')
}

let database: TestDatabase
let db: Db
beforeAll(async () => {
  if (onSqlite) return
  database = await createTestDatabase()
  db = openDatabase(database.url)
  await migrate(db)
  await sql`create table job_runs (job_id text not null, owner text not null)`.execute(db.kysely)
})
afterAll(async () => {
  if (onSqlite) return
  await db.close()
  await database.drop()
})

interface Worker {
  child: ChildProcess
  output: () => string
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>
  exited: Promise<number | null>
}

function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], { env: { PATH: process.env['PATH'], DATABASE_URL: database.url, ...env } })
  let output = ''
  const waiters: (() => void)[] = []
  const onData = (d: Buffer) => {
    output += d.toString()
    for (const w of waiters) w()
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output)
          if (match) resolve(match)
        }
        waiters.push(check)
        check()
        void exited.then(() => reject(new Error(`worker exited before ${pattern}:\n${output}`)))
      }),
  }
}

const runsOf = async () => (await sql<{ job_id: string; owner: string }>`select job_id, owner from job_runs`.execute(db.kysely)).rows

describe.skipIf(onSqlite)('jobs across worker processes (PostgreSQL)', () => {
  it('two processes draining 300 jobs run each exactly once', async () => {
    const jobs = createJobs({ db, clock: systemClock, owner: 'test' })
    const ids = new Set<string>()
    for (let i = 0; i < 300; i++) ids.add((await jobs.enqueue(db.kysely, { kind: 'record', payload: { i } })).id)

    const workers = [startWorker({ JOBS_WORKER_MODE: 'drain' }), startWorker({ JOBS_WORKER_MODE: 'drain' })]
    await Promise.all(workers.map((w) => w.waitFor(/^ready$/m)))
    for (const w of workers) w.child.stdin!.write('go\n') // both start at once, so they really compete
    const codes = await Promise.all(workers.map((w) => w.exited))
    expect(codes, workers.map((w) => w.output()).join('\n')).toEqual([0, 0])

    const runs = await runsOf()
    expect(runs).toHaveLength(300)
    expect(new Set(runs.map((r) => r.job_id))).toEqual(ids)
    expect(new Set(runs.map((r) => r.owner)).size).toBe(2) // both processes did part of the work
    const statuses = await db.kysely.selectFrom('jobs').select(['status', 'attempts']).execute()
    expect(statuses.every((s) => s.status === 'done' && s.attempts === 1)).toBe(true)
  }, 60_000)

  it('a job whose worker is killed with SIGKILL mid-run is run again by another process after the lease lapses', async () => {
    await db.kysely.deleteFrom('jobs').execute()
    await sql`delete from job_runs`.execute(db.kysely)
    const jobs = createJobs({ db, clock: systemClock, owner: 'test' })
    const { id } = await jobs.enqueue(db.kysely, { kind: 'record', payload: {} })

    const doomed = startWorker({ JOBS_WORKER_MODE: 'hang', JOBS_LEASE_MS: '1500' })
    await doomed.waitFor(new RegExp(`^started ${id}$`, 'm'))
    doomed.child.kill('SIGKILL')
    expect(await doomed.exited).toBeNull() // killed by the signal, no chance to clean up
    expect(await jobs.get(id)).toMatchObject({ status: 'running', attempts: 1 })

    const rescuer = startWorker({ JOBS_WORKER_MODE: 'finish', JOBS_LEASE_MS: '1500', JOBS_WAIT_FOR: id })
    expect(await rescuer.exited, rescuer.output()).toBe(0)
    expect(await jobs.get(id)).toMatchObject({ status: 'done', attempts: 2, leaseOwner: null })
    const runs = await runsOf()
    expect(runs).toHaveLength(2)
    expect(runs.map((r) => r.owner.split('-')[0]).sort()).toEqual(['finish', 'hang']) // once in each process
  }, 60_000)
})
