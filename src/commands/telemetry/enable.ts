import {BaseCommand} from '../../cli/base.js'
import {telemetryLine, telemetryState, type TelemetryState} from '../../cli/telemetry-state.js'
import {setTelemetry} from '../../config/telemetry.js'

export default class TelemetryEnable extends BaseCommand {
  static override summary = 'Turn usage telemetry on (statistics go to METADATA_TELEMETRY_ENDPOINT when set).'
  static override examples = ['<%= config.bin %> telemetry enable', '<%= config.bin %> telemetry enable --json']

  async run(): Promise<TelemetryState> {
    await this.parse(TelemetryEnable)
    setTelemetry(true)
    const s = telemetryState()
    this.log(telemetryLine(s))
    return s
  }
}
