import {BaseCommand} from '../../cli/base.js'
import {telemetryLine, telemetryState, type TelemetryState} from '../../cli/telemetry-state.js'

export default class TelemetryStatus extends BaseCommand {
  static override summary = 'Show whether usage telemetry is on, and where events go.'
  static override examples = ['<%= config.bin %> telemetry status', '<%= config.bin %> telemetry status --json']

  async run(): Promise<TelemetryState> {
    await this.parse(TelemetryStatus)
    const s = telemetryState()
    this.log(telemetryLine(s))
    return s
  }
}
