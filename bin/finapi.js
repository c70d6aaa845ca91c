#!/usr/bin/env node
// Runs the compiled build (dist/, made by `npm install` through the prepare script, or `npm run build`): plain
// JavaScript, no loader in the process. Source maps make stack traces name the .ts lines.
import { existsSync } from 'node:fs'

const cli = new URL('../dist/cli.js', import.meta.url)
if (!existsSync(cli)) {
  process.stderr.write('finapi: the compiled build is missing (dist/cli.js); run `npm run build` (npm install runs it too)\n')
  process.exit(1)
}
process.setSourceMapsEnabled(true)
await import(cli.href)
