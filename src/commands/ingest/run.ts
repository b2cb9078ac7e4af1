import Ingest from './index.js'

export default class IngestRun extends Ingest {
  static override summary = 'Run a recipe (same as `ingest`).'
  static override examples = [
    {description: 'Ingest with a recipe', command: '<%= config.bin %> ingest run -c recipe.yml'},
    {description: 'Write nothing, just check', command: '<%= config.bin %> ingest run -c recipe.yml --dry-run'},
  ]
}
