// Runs the real `finapi` command (bin/finapi.js) as a child process, with only the environment given.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Command } from 'commander'
import { buildProgram } from '../../src/cli/program.js'

const BIN = fileURLToPath(new URL('../../bin/finapi.js', import.meta.url))
const DEPLOYED_BIN = fileURLToPath(new URL('../../bin/finapi', import.meta.url))

export interface Finished {
  code: number | null
  stdout: string
  stderr: string
}

export function runFinapi(args: string[], env: Record<string, string>, options: { input?: string } = {}): Promise<Finished> {
  return runCommand(process.execPath, [BIN, ...args], env, options)
}

/** Any command, with only PATH and the environment given, and `input` (if any) on its standard input. */
export function runCommand(command: string, args: string[], env: Record<string, string>, options: { cwd?: string; input?: string } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { PATH: process.env['PATH'], ...env }, cwd: options.cwd })
    if (options.input !== undefined) child.stdin.end(options.input)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/**
 * Every command of the tree `finapi` is built from, as the words that run it (`['keys', 'create']`), groups
 * (`['keys']`) included when `groups`. Built, not run: no database, no configuration.
 */
export function finapiCommands(options: { groups?: boolean } = {}): string[][] {
  const unused = () => Promise.reject(new Error('not run'))
  const program = buildProgram({ config: unused, withServices: unused, clock: { now: () => new Date(), nowMs: () => Date.now(), setTimer: () => ({ cancel() {} }) } }, '0.0.0')
  const walk = (command: Command, path: string[]): string[][] =>
    command.commands.flatMap((sub) => {
      const here = [...path, sub.name()]
      return sub.commands.length > 0 ? [...(options.groups ? [here] : []), ...walk(sub, here)] : [here]
    })
  return walk(program, [])
}

export interface RunningServer {
  child: ChildProcess
  baseUrl: string
  output: () => string
  exited: Promise<number | null>
}

/**
 * `finapi serve` on a free port; resolves once it prints the address it listens on. `deployed`: started as `npm start`
 * and the `finapi` command start it (bin/finapi, the shell script that execs Node).
 */
export function startFinapiServer(env: Record<string, string>, options: { deployed?: boolean } = {}): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const [command, args] = options.deployed ? [DEPLOYED_BIN, ['serve']] : [process.execPath, [BIN, 'serve']]
    const child = spawn(command, args, { env: { PATH: process.env['PATH'], ...env, PORT: '0' } })
    let output = ''
    const exited = new Promise<number | null>((r) => child.on('close', r))
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000)
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString()
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ child, baseUrl: match[1]!, output: () => output, exited })
      }
    })
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    exited.then(() => reject(new Error(`server exited:\n${output}`)), () => undefined)
  })
}

/**
 * `finapi serve` processes on one database, started one after the other: the first creates the schema and the
 * sandbox identities, the others find them. Stop them with stopFinapiServers.
 */
export async function startFinapiServers(count: number, env: Record<string, string>): Promise<RunningServer[]> {
  const servers: RunningServer[] = []
  for (let i = 0; i < count; i++) servers.push(await startFinapiServer(env))
  return servers
}

/** SIGTERM to each server, waiting for each to exit. */
export async function stopFinapiServers(servers: readonly RunningServer[]): Promise<void> {
  for (const server of servers) {
    server.child.kill('SIGTERM')
    await server.exited
  }
}
