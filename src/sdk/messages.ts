/** Message helpers shared by the pipeline and sinks. */

/** Drops the `<where> (<urn>): ` prefix prepareProposal puts on its messages; we say it ourselves. */
export function stripWhere(message: string, where: string, urn: unknown): string {
  for (const prefix of [`${where} (${String(urn)}): `, `${where}: `]) if (message.startsWith(prefix)) return message.slice(prefix.length)
  return message
}
