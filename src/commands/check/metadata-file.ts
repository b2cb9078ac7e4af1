import CheckMceFile from './mce-file.js'

export default class CheckMetadataFile extends CheckMceFile {
  static override summary = 'Validate a change-event (MCE/MCP) file (same as `check mce-file`).'
}
