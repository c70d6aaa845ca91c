// CPU time a benchmark's child process has used, for the figures that need it and for waiting until it is idle.
import { readFileSync } from 'node:fs'

/** CPU seconds a process has used (user + system), from /proc (Linux); NaN where that cannot be read. */
export function cpuSeconds(pid: number | undefined): number {
  return statSeconds(`/proc/${pid}/stat`)
}

/**
 * CPU seconds of a process's main thread alone (its event loop; Linux numbers it as the process): a worker thread's or
 * the garbage collector's helpers' time is not in it.
 */
export function mainThreadCpuSeconds(pid: number | undefined): number {
  return statSeconds(`/proc/${pid}/task/${pid}/stat`)
}

function statSeconds(file: string): number {
  try {
    const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return NaN
  }
}

/**
 * Waits until the server has finished its start-up work (the sandbox's reporting data is generated after ready): a
 * second with under 5 % of a core, or under 20 % while it is profiled (BENCH_PROFILE: `--cpu-prof`'s sampling alone
 * keeps an idle process near a tenth of a core, which never looked settled).
 */
export async function settled(pid: number): Promise<void> {
  const idle = process.env['BENCH_PROFILE'] ? 0.2 : 0.05
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))
  if (Number.isNaN(cpuSeconds(pid))) return void (await pause(10_000))
  for (let i = 0; i < 120; i++) {
    const before = cpuSeconds(pid)
    await pause(1_000)
    if (cpuSeconds(pid) - before < idle) return
  }
  throw new Error('finapi was still busy two minutes after start')
}
