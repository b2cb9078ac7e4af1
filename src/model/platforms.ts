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
  logoUrl?: string
}

/**
 * `logo` is a file of DataHub's web app (`/assets/platforms/…`), the address DataHub's own seeded
 * platforms give: served with the app, it shows each platform's logo; without it, an address that
 * is simply not there, as on DataHub without its frontend.
 */
const P = (name: string, displayName: string, type: PlatformType, datasetNameDelimiter = '.', logo?: string): PlatformInfo =>
  logo ? {name, displayName, type, datasetNameDelimiter, logoUrl: `/assets/platforms/${logo}`} : {name, displayName, type, datasetNameDelimiter}

export const KNOWN_PLATFORMS: readonly PlatformInfo[] = [
  P('airflow', 'Airflow', 'OTHERS', '.', 'airflowlogo.png'),
  P('athena', 'AWS Athena', 'RELATIONAL_DB', '.', 'awsathenalogo.png'),
  P('bigquery', 'BigQuery', 'RELATIONAL_DB', '.', 'bigquerylogo.png'),
  P('clickhouse', 'ClickHouse', 'RELATIONAL_DB', '.', 'clickhouselogo.png'),
  P('csv', 'CSV', 'FILE_SYSTEM', '.', 'csv-logo.png'),
  P('databricks', 'Databricks', 'OTHERS', '.', 'databrickslogo.png'),
  P('dbt', 'dbt', 'OTHERS', '.', 'dbtlogo.png'),
  P('delta-lake', 'Delta Lake', 'OTHERS', '.', 'deltalakelogo.png'),
  P('druid', 'Druid', 'OLAP_DATASTORE', '.', 'druidlogo.png'),
  P('duckdb', 'DuckDB', 'RELATIONAL_DB'),
  P('dynamodb', 'DynamoDB', 'KEY_VALUE_STORE', '.', 'dynamodblogo.png'),
  P('elasticsearch', 'Elasticsearch', 'SEARCH_ENGINE', '.', 'elasticsearchlogo.png'),
  P('external', 'External Source', 'OTHERS'),
  P('file', 'File', 'FILE_SYSTEM', '.', 'file-logo.png'),
  P('gcs', 'Google Cloud Storage', 'FILE_SYSTEM', '.', 'gcslogo.svg'),
  P('glue', 'Glue', 'OTHERS', '.', 'gluelogo.png'),
  P('hdfs', 'HDFS', 'FILE_SYSTEM', '/', 'hadooplogo.png'),
  P('hive', 'Hive', 'FILE_SYSTEM', '.', 'hivelogo.png'),
  P('iceberg', 'Iceberg', 'FILE_SYSTEM', '.', 'iceberglogo.png'),
  P('kafka', 'Kafka', 'MESSAGE_BROKER', '.', 'kafkalogo.png'),
  P('kafka-connect', 'Kafka Connect', 'OTHERS', '.', 'kafkalogo.png'),
  P('looker', 'Looker', 'OTHERS', '.', 'lookerlogo.svg'),
  P('mariadb', 'MariaDB', 'RELATIONAL_DB', '.', 'mariadblogo.png'),
  P('metabase', 'Metabase', 'OTHERS', '.', 'metabaselogo.svg'),
  P('mlflow', 'MLflow', 'OTHERS', '.', 'mlflowlogo2.png'),
  P('mode', 'Mode', 'OTHERS', '.', 'modelogo.png'),
  P('mongodb', 'MongoDB', 'KEY_VALUE_STORE', '.', 'mongodblogo.png'),
  P('mssql', 'SQL Server', 'RELATIONAL_DB', '.', 'mssqllogo.png'),
  P('mysql', 'MySQL', 'RELATIONAL_DB', '.', 'mysqllogo-2.png'),
  P('nats', 'NATS JetStream', 'MESSAGE_BROKER'),
  P('oracle', 'Oracle', 'RELATIONAL_DB', '.', 'oraclelogo.png'),
  P('postgres', 'PostgreSQL', 'RELATIONAL_DB', '.', 'postgreslogo.png'),
  P('powerbi', 'Power BI', 'OTHERS', '.', 'powerbilogo.png'),
  P('presto', 'Presto', 'QUERY_ENGINE', '.', 'prestologo.png'),
  P('pulsar', 'Pulsar', 'MESSAGE_BROKER', '.', 'pulsarlogo.png'),
  P('redshift', 'Redshift', 'RELATIONAL_DB', '.', 'redshiftlogo.png'),
  P('s3', 'AWS S3', 'FILE_SYSTEM', '/', 's3.png'),
  P('salesforce', 'Salesforce', 'OTHERS', '.', 'logo-salesforce.svg'),
  P('snowflake', 'Snowflake', 'RELATIONAL_DB', '.', 'snowflakelogo.png'),
  P('spark', 'Spark', 'OTHERS', '.', 'sparklogo.png'),
  P('superset', 'Superset', 'OTHERS', '.', 'supersetlogo.png'),
  P('tableau', 'Tableau', 'OTHERS', '.', 'tableaulogo.svg'),
  P('teradata', 'Teradata', 'RELATIONAL_DB', '.', 'teradatalogo.png'),
  P('trino', 'Trino', 'QUERY_ENGINE', '.', 'trinologo.png'),
  P('vertica', 'Vertica', 'RELATIONAL_DB', '.', 'verticalogo.png'),
]

const BY_NAME = new Map(KNOWN_PLATFORMS.map((p) => [p.name, p]))

/** What mdcli knows of a platform by name (`postgres`), or undefined. */
export function knownPlatform(name: string): PlatformInfo | undefined {
  return BY_NAME.get(name)
}
