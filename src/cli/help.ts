/**
 * oclif's help with descriptions that wrap at words: descriptions are written with hard line
 * breaks at source width, which oclif keeps and then wraps again at the terminal's width, leaving
 * one or two orphan words on lines of their own. Here each paragraph's lines are joined first so
 * oclif wraps the paragraph once. Lists, indented lines and tables keep their breaks.
 */
import {Help, type Command, type Interfaces} from '@oclif/core'

/** A line that starts a structure of its own (list item, indented block, table row). */
const KEEPS_BREAK = /^(\s|[-*•|>]\s|\d+[.)]\s|\$ )/

/** Joins the soft-broken lines of each paragraph; blank lines and structured lines stay. */
export function reflow(text: string): string {
  const out: string[] = []
  for (const line of text.split('\n')) {
    const prev = out.length ? out[out.length - 1]! : undefined
    const joinable = prev !== undefined && prev.trim() !== '' && line.trim() !== '' && !KEEPS_BREAK.test(line) && !KEEPS_BREAK.test(prev)
    if (joinable) out[out.length - 1] = `${prev} ${line.trim()}`
    else out.push(line)
  }
  return out.join('\n')
}

export default class MdcliHelp extends Help {
  /** A topic's page (`mdcli check --help`) ends with the first example of each of its commands. */
  protected override async showTopicHelp(topic: Interfaces.Topic): Promise<void> {
    await super.showTopicHelp(topic)
    // Ids may come with either separator, depending on the CLI's topicSeparator.
    const parts = (id: string) => id.split(/[: ]/)
    const name = parts(topic.name)
    const examples: string[] = []
    for (const c of this.sortedCommands) {
      const id = parts(c.id)
      if (id.length !== name.length + 1 || name.some((p, i) => id[i] !== p)) continue
      const first = c.examples?.[0]
      const text = typeof first === 'string' ? first : first?.command
      if (text && !examples.some((e) => e.endsWith(text.replace(/<%= config\.bin %>/g, this.config.bin)))) examples.push(`  $ ${text.replace(/<%= config\.bin %>/g, this.config.bin).replace(/<%= command\.id %>/g, id.join(' '))}`)
    }
    if (examples.length > 0) this.log(`EXAMPLES\n${examples.join('\n')}\n`)
  }

  override async showCommandHelp(command: Command.Loadable): Promise<void> {
    const reflowed = {...command, description: command.description ? reflow(command.description) : command.description, summary: command.summary ? reflow(command.summary) : command.summary}
    return super.showCommandHelp(reflowed as Command.Loadable)
  }
}
