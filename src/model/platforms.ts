/**
 * The data platforms mdcli knows without being told (DataHub seeds its own list at boot): name,
 * display name and kind. A stored `dataPlatformInfo` aspect always wins; this list fills in for
 * platforms nobody described, so a fresh catalog shows "PostgreSQL", not "postgres".
 *
 * Ours beyond DataHub's list: `duckdb` (the duckdb source) and `nats` (JetStream streams).
 */
export type PlatformType =
  | 'FILE_SYSTEM'
  | 'KEY_VALUE_STORE'
  | 'MESSAGE_BROKER'
  | 'OBJECT_STORE'
  | 'OLAP_DATASTORE'
  | 'OTHERS'
  | 'QUERY_ENGINE'
  | 'RELATIONAL_DB'
  | 'SEARCH_ENGINE'

export interface PlatformInfo {
  name: string
  displayName: string
  type: PlatformType
  datasetNameDelimiter: string
}

const P = (name: string, displayName: string, type: PlatformType, datasetNameDelimiter = '.'): PlatformInfo => ({name, displayName, type, datasetNameDelimiter})

export const KNOWN_PLATFORMS: readonly PlatformInfo[] = [
  P('airflow', 'Airflow', 'OTHERS'),
  P('athena', 'AWS Athena', 'RELATIONAL_DB'),
  P('bigquery', 'BigQuery', 'RELATIONAL_DB'),
  P('clickhouse', 'ClickHouse', 'RELATIONAL_DB'),
  P('csv', 'CSV', 'FILE_SYSTEM'),
  P('databricks', 'Databricks', 'OTHERS'),
  P('dbt', 'dbt', 'OTHERS'),
  P('delta-lake', 'Delta Lake', 'OTHERS'),
  P('druid', 'Druid', 'OLAP_DATASTORE'),
  P('duckdb', 'DuckDB', 'RELATIONAL_DB'),
  P('dynamodb', 'DynamoDB', 'KEY_VALUE_STORE'),
  P('elasticsearch', 'Elasticsearch', 'SEARCH_ENGINE'),
  P('external', 'External Source', 'OTHERS'),
  P('file', 'File', 'FILE_SYSTEM'),
  P('gcs', 'Google Cloud Storage', 'FILE_SYSTEM'),
  P('glue', 'Glue', 'OTHERS'),
  P('hdfs', 'HDFS', 'FILE_SYSTEM', '/'),
  P('hive', 'Hive', 'FILE_SYSTEM'),
  P('iceberg', 'Iceberg', 'FILE_SYSTEM'),
  P('kafka', 'Kafka', 'MESSAGE_BROKER'),
  P('kafka-connect', 'Kafka Connect', 'OTHERS'),
  P('looker', 'Looker', 'OTHERS'),
  P('mariadb', 'MariaDB', 'RELATIONAL_DB'),
  P('metabase', 'Metabase', 'OTHERS'),
  P('mlflow', 'MLflow', 'OTHERS'),
  P('mode', 'Mode', 'OTHERS'),
  P('mongodb', 'MongoDB', 'KEY_VALUE_STORE'),
  P('mssql', 'SQL Server', 'RELATIONAL_DB'),
  P('mysql', 'MySQL', 'RELATIONAL_DB'),
  P('nats', 'NATS JetStream', 'MESSAGE_BROKER'),
  P('oracle', 'Oracle', 'RELATIONAL_DB'),
  P('postgres', 'PostgreSQL', 'RELATIONAL_DB'),
  P('powerbi', 'Power BI', 'OTHERS'),
  P('presto', 'Presto', 'QUERY_ENGINE'),
  P('pulsar', 'Pulsar', 'MESSAGE_BROKER'),
  P('redshift', 'Redshift', 'RELATIONAL_DB'),
  P('s3', 'AWS S3', 'FILE_SYSTEM', '/'),
  P('salesforce', 'Salesforce', 'OTHERS'),
  P('snowflake', 'Snowflake', 'RELATIONAL_DB'),
  P('spark', 'Spark', 'OTHERS'),
  P('superset', 'Superset', 'OTHERS'),
  P('tableau', 'Tableau', 'OTHERS'),
  P('teradata', 'Teradata', 'RELATIONAL_DB'),
  P('trino', 'Trino', 'QUERY_ENGINE'),
  P('vertica', 'Vertica', 'RELATIONAL_DB'),
]

const BY_NAME = new Map(KNOWN_PLATFORMS.map((p) => [p.name, p]))

/** What mdcli knows of a platform by name (`postgres`), or undefined. */
export function knownPlatform(name: string): PlatformInfo | undefined {
  return BY_NAME.get(name)
}
