// A worker process for test/jobs-processes.test.ts: works the `record` jobs of DATABASE_URL on the real clock.
// Each run inserts (job id, owner) into the test's job_runs table, so the test can count how often each job ran.
//   JOBS_WORKER_MODE=drain: prints "ready", waits for "go" on stdin, runs until no job is left, exits 0.
//   JOBS_WORKER_MODE=hang:  claims with a JOBS_LEASE_MS lease, prints "started <id>" and never finishes.
//   JOBS_WORKER_MODE=finish: runs jobs (JOBS_LEASE_MS lease) until JOBS_WAIT_FOR is done, then exits 0.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { systemClock } from '../../src/platform/clock.js'
import { openDatabase } from '../../src/platform/db/database.js'
import { createJobs } from '../../src/platform/jobs/service.js'

const mode = process.env['JOBS_WORKER_MODE']
const owner = `${mode}-${process.pid}-${randomUUID().slice(0, 8)}`
const db = openDatabase(process.env['DATABASE_URL']!)
const leaseMs = Number(process.env['JOBS_LEASE_MS'] ?? 60_000)
const jobs = createJobs({ db, clock: systemClock, owner, batchSize: 5, onError: (err) => console.error(err) })
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

jobs.register(
  'record',
  async (_payload, job) => {
    await sql`insert into job_runs (job_id, owner) values (${job.id}, ${owner})`.execute(db.kysely)
    if (mode === 'hang') {
      console.log(`started ${job.id}`)
      await new Promise(() => {})
    }
    await pause(Math.random() * 3) // interleave the two processes' transactions
  },
  { leaseMs },
)

const remaining = async () =>
  (await db.kysely.selectFrom('jobs').select((eb) => eb.fn.countAll<string>().as('n')).where('status', 'in', ['pending', 'running']).executeTakeFirstOrThrow()).n

if (mode === 'drain') {
  console.log('ready')
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()))
  process.stdin.destroy() // an open stdin would keep the process alive after the work is done
  while (Number(await remaining()) > 0) {
    const summary = await jobs.runDue()
    if (summary.succeeded + summary.failed + summary.lost === 0) await pause(20)
  }
} else if (mode === 'hang') {
  await jobs.runDue()
} else if (mode === 'finish') {
  const id = process.env['JOBS_WAIT_FOR']!
  for (;;) {
    await jobs.runDue()
    if ((await jobs.get(id))?.status === 'done') break
    await pause(100)
  }
}
await db.close()
