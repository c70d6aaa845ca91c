// `finapi --help`: every command a person can run, subcommands included, each with its usage and what it does, so
// one screen answers "what can this do". A group's help (`finapi keys --help`) and a command's are commander's own.
import { Help, type Command } from 'commander'

/** The widest term column: a longer usage goes on a line of its own, its description below it. */
const TERM_COLUMN = 30

/** The commands that do something (not the groups that hold them), in the order they were registered. */
function leaves(command: Command): Command[] {
  return command.commands.flatMap((sub) => (sub.commands.length > 0 ? leaves(sub) : [sub]))
}

class OverviewHelp extends Help {
  override visibleCommands(cmd: Command): Command[] {
    return leaves(cmd)
  }

  override subcommandTerm(cmd: Command): string {
    const names: string[] = []
    for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name())
    const usage = cmd.usage()
    return `${names.join(' ')}${usage && usage !== '[options]' ? ` ${usage.replace(/^\[options\] ?/, '')}` : ''}`
  }

  override padWidth(cmd: Command, helper: Help): number {
    return Math.min(TERM_COLUMN - 2, super.padWidth(cmd, helper))
  }

  override formatItem(term: string, termWidth: number, description: string, helper: Help): string {
    if (term.length <= termWidth) return super.formatItem(term, termWidth, description, helper)
    return `  ${term}\n${super.formatItem('', termWidth, description, helper)}`
  }
}

/** Gives `program` the overview help; its subcommands keep the standard one. */
export function useOverviewHelp(program: Command): void {
  program.createHelp = () => Object.assign(new OverviewHelp(), program.configureHelp())
}
