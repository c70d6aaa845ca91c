// CPU time a benchmark's child process has used, for the figures that need it and for waiting until it is idle.
import { readFileSync } from 'node:fs'

/** CPU seconds a process has used (user + system), from /proc (Linux); NaN where that cannot be read. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return NaN
  }
}
