/**
 * DuckDB (which mdcli ships) as the Parquet reader of the data-lake sources: schemas from the
 * file footer, rows streamed a chunk at a time so memory stays flat however large the file.
 * One in-memory database per call site, opened on first use (listing plugins never loads it).
 */
import type {DuckDBConnection, DuckDBInstance} from '@duckdb/node-api'

export const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`

export class Duck {
  private opened?: Promise<{instance: DuckDBInstance; conn: DuckDBConnection}>

  private async conn(): Promise<DuckDBConnection> {
    this.opened ??= (async () => {
      const {DuckDBInstance} = await import('@duckdb/node-api')
      // A lake run must not grow with the files it reads: DuckDB's own memory is capped too, and
      // its external file cache is off — it kept blocks of every file read (about 16 KB a small
      // Parquet file, up to the memory limit), which is what made a lake run's RSS grow with its
      // file count; each file is read once here, so the cache never served a second read.
      const instance = await DuckDBInstance.create(':memory:', {memory_limit: '256MB', threads: '2', enable_external_file_cache: 'false'})
      return {instance, conn: await instance.connect()}
    })()
    return (await this.opened).conn
  }

  async all(sql: string): Promise<Array<Record<string, unknown>>> {
    const conn = await this.conn()
    return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>
  }

  /** Column names and DuckDB types of a query's result. */
  async describe(sql: string): Promise<Array<{name: string; type: string}>> {
    return (await this.all(`DESCRIBE ${sql}`)).map((r) => ({name: String(r.column_name), type: String(r.column_type)}))
  }

  /** Rows of a query, a chunk (≤ 2,048 rows) at a time, as plain JS values. */
  async *stream(sql: string): AsyncGenerator<unknown[][]> {
    const conn = await this.conn()
    const result = await conn.stream(sql)
    for await (const rows of result.yieldRowsJs()) yield rows as unknown[][]
  }

  close(): void {
    if (!this.opened) return
    void this.opened.then(({instance, conn}) => {
      conn.closeSync()
      instance.closeSync()
    })
    this.opened = undefined
  }
}

/** Every row of some Parquet files (a Delta checkpoint is small: one row per action). */
export async function readParquetRows(paths: string[], sql: string): Promise<Array<Record<string, any>>> {
  const duck = new Duck()
  try {
    return await duck.all(sql.replace('$files', `[${paths.map(sqlString).join(', ')}]`))
  } finally {
    duck.close()
  }
}
