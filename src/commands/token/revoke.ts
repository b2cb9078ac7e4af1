import {Args} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {UsageError} from '../../errors.js'

export default class TokenRevoke extends BaseCommand {
  static override summary = 'Revoke an access token; it stops working at once.'
  static override description = 'Takes the token id from `token list` (its first characters are enough when they are unique).'
  static override examples = ['<%= config.bin %> token revoke 3f2a9c01b7de']
  static override args = {id: Args.string({description: 'Token id or a unique prefix of it.', required: true})}

  async run(): Promise<{revoked: string}> {
    const {args} = await this.parse(TokenRevoke)
    const client = this.client()
    const list = await client.graphqlData<{listAccessTokens: {tokens: Array<{id: string; name: string}>}}>('query { listAccessTokens(input: {start: 0, count: 10000}) { tokens { id name } } }')
    // An empty id is a prefix of every id: a script with an unset variable would revoke a token.
    if (args.id.trim() === '') throw new UsageError('The token id is empty: give the id (or a prefix of it) that `mdcli token list` shows')
    const matches = list.listAccessTokens.tokens.filter((t) => t.id.startsWith(args.id))
    if (matches.length === 0) throw new UsageError(`No access token with id ${args.id} among the tokens you may see (mdcli token list)`)
    if (matches.length > 1) throw new UsageError(`Id prefix ${args.id} matches ${matches.length} tokens; give more characters`)
    await client.graphqlData('mutation revoke($id: String!) { revokeAccessToken(tokenId: $id) }', {id: matches[0]!.id})
    this.log(`Revoked token '${matches[0]!.name}' (${matches[0]!.id.slice(0, 12)}…).`)
    return {revoked: matches[0]!.id}
  }
}
