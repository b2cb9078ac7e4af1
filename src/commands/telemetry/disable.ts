import {BaseCommand} from '../../cli/base.js'
import {setTelemetry, telemetryPath} from '../../config/telemetry.js'

export default class TelemetryDisable extends BaseCommand {
  static override summary = 'Turn usage telemetry off (no usage statistics are sent).'
  static override examples = ['<%= config.bin %> telemetry disable']

  async run(): Promise<{enabled: boolean; path: string}> {
    await this.parse(TelemetryDisable)
    setTelemetry(false)
    return {enabled: false, path: telemetryPath()}
  }
}
