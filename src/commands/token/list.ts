import {BaseCommand} from '../../cli/base.js'
import {formatLocalTime, gridTable} from '../../ui/tables.js'

interface TokenRow {
  id: string
  name: string
  actorUrn: string
  ownerUrn: string
  createdAt: number
  expiresAt: number | null
}

export default class TokenList extends BaseCommand {
  static override summary = 'List access tokens (yours; all of them with MANAGE_ACCESS_TOKENS).'
  static override examples = ['<%= config.bin %> token list', '<%= config.bin %> token list --json']

  async run(): Promise<TokenRow[]> {
    await this.parse(TokenList)
    const r = await this.client().graphqlData<{listAccessTokens: {tokens: TokenRow[]}}>(
      'query { listAccessTokens(input: {start: 0, count: 10000}) { tokens { id name actorUrn ownerUrn createdAt expiresAt } } }',
    )
    const rows = r.listAccessTokens.tokens
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log('No access tokens.')
      else {
        const when = (t: number | null) => (t ? formatLocalTime(t) : 'never')
        this.log(gridTable(['id', 'name', 'actor', 'created at', 'expires at'], rows.map((t) => [t.id.slice(0, 12), t.name, t.actorUrn, when(t.createdAt), when(t.expiresAt)])))
      }
    }
    return rows
  }
}
