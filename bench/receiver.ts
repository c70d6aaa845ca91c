// The webhook receiver the delivery benchmarks send to: bench/server.ts's `receiver` mode, in a process of its own.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url))

/** Starts the receiver; resolves with its process and URL once it prints its port. */
export function startReceiver(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SERVER, 'receiver'], { stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout!.on('data', (d: Buffer) => {
      const port = /PORT (\d+)/.exec(d.toString())?.[1]
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` })
    })
    child.on('exit', (code) => reject(new Error(`receiver exited with ${code}`)))
  })
}
