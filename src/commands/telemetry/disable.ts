import {BaseCommand} from '../../cli/base.js'
import {telemetryLine, telemetryState, type TelemetryState} from '../../cli/telemetry-state.js'
import {setTelemetry} from '../../config/telemetry.js'

export default class TelemetryDisable extends BaseCommand {
  static override summary = 'Turn usage telemetry off (no usage statistics are sent).'
  static override examples = ['<%= config.bin %> telemetry disable', '<%= config.bin %> telemetry disable --json']

  async run(): Promise<TelemetryState> {
    await this.parse(TelemetryDisable)
    setTelemetry(false)
    const s = telemetryState()
    this.log(telemetryLine(s))
    return s
  }
}
