import {mustHoldStore} from '../../cli/local-store.js'
import {maskUrl} from '../../store/postgres/url.js'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {UsageError} from '../../errors.js'

const DURATIONS = ['ONE_HOUR', 'ONE_DAY', 'ONE_WEEK', 'ONE_MONTH', 'THREE_MONTHS', 'SIX_MONTHS', 'ONE_YEAR', 'NO_EXPIRY']

export interface CreatedToken {
  accessToken: string
  id: string
  name: string
  actorUrn: string
  expiresAt?: number | null
}

export default class TokenCreate extends BaseCommand {
  static override summary = 'Create a personal access token (shown once).'
  static override description = `Creates a token that acts for a user (yourself by default; another user needs the
MANAGE_ACCESS_TOKENS privilege). The token is printed once and never stored in clear: keep it.`
  static override examples = [
    '<%= config.bin %> token create --name ci-pipeline',
    '<%= config.bin %> token create --name bob-laptop --actor urn:li:corpuser:bob --duration ONE_WEEK',
    'export METADATA_GMS_TOKEN=$(<%= config.bin %> token create --name scripts --json | jq -r .accessToken)',
    {description: 'Lost the admin token? Stop the server, then mint a new one on its store (saved to the config file)', command: '<%= config.bin %> token create --admin --store ~/.local/share/mdcli/lite'},
  ]

  static override flags = {
    name: Flags.string({summary: 'A name to recognise the token by.', default: 'token'}),
    admin: Flags.boolean({summary: 'Mint an admin token directly on a stopped store (recovery; needs --store).', dependsOn: ['store'], exclusive: ['actor', 'description']}),
    store: Flags.string({summary: 'Store directory, with --admin.', dependsOn: ['admin']}),
    actor: Flags.string({summary: 'The user the token acts for (default: you).'}),
    duration: Flags.string({summary: 'How long the token lives.', options: DURATIONS, default: 'ONE_MONTH'}),
    description: Flags.string({summary: 'What the token is for.'}),
  }

  async run(): Promise<CreatedToken> {
    const {flags} = await this.parse(TokenCreate)
    if (flags.admin) return this.recover(flags.store!, flags.name === 'token' ? 'admin token (recovered)' : flags.name)
    const client = this.client()
    let actorUrn = flags.actor
    if (!actorUrn) {
      const me = await client.graphqlData<{me: {corpUser: {urn: string}}}>('query { me { corpUser { urn } } }')
      actorUrn = me.me.corpUser.urn
    }
    const r = await client.graphqlData<{createAccessToken: {accessToken: string; metadata: {id: string; name: string; actorUrn: string; expiresAt: number | null}}}>(
      'mutation create($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken metadata { id name actorUrn expiresAt } } }',
      {input: {type: 'PERSONAL', actorUrn, duration: flags.duration, name: flags.name, ...(flags.description ? {description: flags.description} : {})}},
    )
    const t = r.createAccessToken
    this.log(`Created token '${t.metadata.name}' for ${t.metadata.actorUrn} (id ${t.metadata.id.slice(0, 12)}…, ${t.metadata.expiresAt ? `expires ${new Date(t.metadata.expiresAt).toISOString()}` : 'never expires'}).`)
    this.log('Keep it now; it is not shown again:')
    this.log(`  ${t.accessToken}`)
    return {accessToken: t.accessToken, ...t.metadata}
  }

  private async recover(storeDir: string, name: string): Promise<CreatedToken> {
    const {recoverAdminToken} = await import('../../catalog/access/bootstrap.js')
    const {resolveSettings, writeConfigFile} = await import('../../config/settings.js')
    // `--store "$METADATA_STORE_URL"` typed on a host where the variable is not set comes out empty.
    if (storeDir.trim() === '') throw new UsageError('The --store flag is empty: give the store directory or PostgreSQL URL (a variable such as $METADATA_STORE_URL expanded to nothing?)')
    // A mistyped path would become a new store, and its token would replace the saved one.
    mustHoldStore(storeDir)
    const {accessToken, id} = await recoverAdminToken(storeDir, name)
    this.log(`Created admin token '${name}' for urn:li:corpuser:datahub on the store ${maskUrl(storeDir)} (never expires).`)
    const settings = resolveSettings()
    if (settings.skipConfig || this.jsonEnabled()) {
      this.log('Keep it now; it is not shown again:')
      this.log(`  ${accessToken}`)
    } else {
      writeConfigFile(settings.configPath, {server: settings.server, token: accessToken})
      this.log(`Saved it to ${settings.configPath} (owner-only); start the server and the next commands use it.`)
    }
    return {accessToken, id, name, actorUrn: 'urn:li:corpuser:datahub', expiresAt: null}
  }
}
