// What every `finapi` command is built from: the two kinds of failure (a usage error: one line, the command's usage,
// exit 2; a failure: one line, exit 1), option parsers that refuse a bad value as a usage error, command groups
// (`finapi keys`), and list output as a table or, with --json, a JSON array. The context a command runs in is the
// command tree's (src/cli/context.ts).
import { InvalidArgumentError, type Command, type Option } from 'commander'

/** A failure the command explains in one line (exit 1): a refused value, an unknown id, an unreadable file. */
export class CliError extends Error {
  override name = 'CliError'
}

/** Code of the CommanderError a usage error is thrown as (exitOverride): exit 2. */
export const USAGE_ERROR = 'finapi.usage'

/** A usage error of `command`: the command line itself is wrong. One line plus the command's usage, exit 2. */
export function usageError(command: Command, message: string): never {
  command.error(`error: ${message}`, { exitCode: 2, code: USAGE_ERROR })
}

/** `finapi keys create`: the command's name with its parents'. */
export function commandPath(command: Command): string {
  const names: string[] = []
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name())
  return names.join(' ')
}

/**
 * A command that holds subcommands (`finapi keys`). Without one, or with an unknown one, it is a usage error that
 * names them (commander would print the whole help to stderr instead).
 */
export function group(parent: Command, name: string, description: string): Command {
  const command = parent.command(name).description(description).allowExcessArguments(true)
  command.action(() => {
    const [given] = command.args
    const names = command.commands.map((c) => c.name())
    const path = commandPath(command).replace(/^\S+ /, '')
    if (given === undefined) usageError(command, `${path} needs a command: ${names.join(', ')}`)
    const near = suggestion(given, names)
    usageError(command, `unknown command '${given}' for ${path}${near ? ` (Did you mean ${near}?)` : ''}; its commands: ${names.join(', ')}`)
  })
  return command
}

/** The closest of `names` to a mistyped `given` (one or two letters off), if any. */
export function suggestion(given: string, names: readonly string[]): string | undefined {
  const distance = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, i) => i)
    for (let i = 1; i <= a.length; i++) {
      const next = [i]
      for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      row = next
    }
    return row[b.length]!
  }
  const ranked = names.map((name) => ({ name, d: distance(given.toLowerCase(), name) })).sort((a, b) => a.d - b.d)
  return ranked[0] && ranked[0].d <= Math.min(2, Math.floor(ranked[0].name.length / 2)) ? ranked[0].name : undefined
}

/**
 * Finishes the tree below `command`: each command prints its usage after a usage error (`usage: finapi keys create
 * …; see … --help`), and a command that does something refuses arguments it does not take (the groups, which take
 * any to name the unknown one, pass that setting down as commands are added).
 */
export function finishCommands(command: Command): void {
  const path = commandPath(command)
  command.showHelpAfterError(`usage: ${path} ${command.usage()}; see ${path} --help`)
  if (command.commands.length === 0) command.allowExcessArguments(false)
  // Commander checks required options before unknown ones, so `--orgs x` would be told "--org not specified": the
  // check moves to just before the action (a hook on the program runs for every command), after the unknown option's.
  const required = command.options.filter((option) => option.mandatory)
  for (const option of required) option.mandatory = false
  if (required.length > 0) requiredOptions.set(command, required)
  if (!command.parent) command.hook('preAction', (_program, action) => checkRequiredOptions(action))
  for (const sub of command.commands) finishCommands(sub)
}

const requiredOptions = new WeakMap<Command, Option[]>()

function checkRequiredOptions(command: Command): void {
  for (const option of requiredOptions.get(command) ?? []) {
    if (command.getOptionValue(option.attributeName()) === undefined) usageError(command, `required option '${option.flags}' not specified`)
  }
}

/** An option's value as a whole number from `min` to `max`; anything else is a usage error. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`It must be a whole number from ${min} to ${max}.`)
    return Number(value)
  }
}

/** An option's value as one of `values`, in any case (`--status delivered`). */
export function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    const upper = value.toUpperCase() as T
    if (!values.includes(upper)) throw new InvalidArgumentError(`It must be one of ${values.join(', ')}.`)
    return upper
  }
}

/** Repeatable options (`--scope a --scope b`) collect into an array. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value]

export const JSON_FLAG = '--json'
export const JSON_DESCRIPTION = 'print a JSON array (one object per row) instead of a table'

type Cell = string | number | null | undefined

/**
 * Rows on stdout: a tab-separated table with a header line (`-` for an empty cell), or with `json` a JSON array of
 * `toJson(row)` (the row itself by default: services' summaries hold no secret).
 */
export function printRows<T>(rows: readonly T[], json: boolean | undefined, header: readonly string[], cells: (row: T) => Cell[], toJson: (row: T) => unknown = (row) => row): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(rows.map(toJson), null, 2)}\n`)
    return
  }
  const line = (values: readonly Cell[]) => values.map((v) => (v === null || v === undefined || v === '' ? '-' : String(v))).join('\t')
  process.stdout.write([header.join('\t'), ...rows.map((row) => line(cells(row)))].join('\n') + '\n')
}

/** Prints one line of output. */
export const say = (text: string): void => void process.stdout.write(`${text}\n`)
