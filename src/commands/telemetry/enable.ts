import {BaseCommand} from '../../cli/base.js'
import {setTelemetry, telemetryPath} from '../../config/telemetry.js'

export default class TelemetryEnable extends BaseCommand {
  static override summary = 'Turn usage telemetry on (statistics go to METADATA_TELEMETRY_ENDPOINT when set).'
  static override examples = ['<%= config.bin %> telemetry enable']

  async run(): Promise<{enabled: boolean; path: string}> {
    await this.parse(TelemetryEnable)
    setTelemetry(true)
    return {enabled: true, path: telemetryPath()}
  }
}
