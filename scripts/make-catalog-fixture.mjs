#!/usr/bin/env node
// Writes test/fixtures/catalog/catalog-sample.json: the project's own small catalog (MCPs in
// DataHub's file format) for the browser and PostgreSQL-store tests, so they run on a fresh
// clone without DataHub's files. Every value here was written for mdcli's tests.
//
// It holds what the pages show: users and groups, four platforms, a lineage chain
// kafka → hdfs → hive with links and a container path, column-level lineage
// (logging_events.event_data → fct_users_created.user_name), a profile, 24 daily tables in one
// schema (more than a page), an ML model, a glossary group with terms, and tags.
import {writeFileSync} from 'node:fs'

const T = 1_700_000_000_000
const stamp = {time: T, actor: 'urn:li:corpuser:jdoe'}
const ds = (platform, name) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`
const KAFKA = ds('kafka', 'SampleKafkaDataset')
const HDFS = ds('hdfs', 'SampleHdfsDataset')
const HIVE = ds('hive', 'SampleHiveDataset')
const LOGGING = ds('hive', 'logging_events')
const FCT = ds('hive', 'fct_users_created')
const out = []
const p = (entityUrn, aspectName, json) => {
  const entityType = entityUrn.split(':')[2]
  out.push({entityType, entityUrn, changeType: 'UPSERT', aspectName, aspect: {json}})
}
const field = (fieldPath, kind, nativeDataType, description) => ({
  fieldPath, nullable: true, type: {type: {[`com.linkedin.schema.${kind}`]: {}}}, nativeDataType, recursive: false, isPartOfKey: false,
  ...(description ? {description} : {}),
})
const schema = (platform, name, fields) => ({
  schemaName: name, platform: `urn:li:dataPlatform:${platform}`, version: 0, created: stamp, lastModified: stamp, hash: '',
  platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields,
})
const owners = (...list) => ({owners: list.map(([owner, type]) => ({owner, type})), lastModified: stamp})
const upstream = (dataset, fineGrainedLineages) => ({upstreams: [{auditStamp: stamp, dataset, type: 'TRANSFORMED'}], ...(fineGrainedLineages ? {fineGrainedLineages} : {})})

for (const [id, displayName, email] of [['jdoe', 'Jo Doe', 'jdoe@example.org'], ['asmith', 'Ari Smith', 'asmith@example.org']]) {
  p(`urn:li:corpuser:${id}`, 'corpUserInfo', {active: true, displayName, email, title: 'Data engineer'})
}
p('urn:li:corpGroup:bfoo', 'corpGroupInfo', {displayName: 'Platform team', admins: [], members: [], groups: [], description: 'Keeps the pipelines running'})
for (const [name, displayName, type] of [['kafka', 'Kafka', 'MESSAGE_BROKER'], ['hdfs', 'HDFS', 'FILE_SYSTEM'], ['hive', 'Hive', 'FILE_SYSTEM'], ['science', 'Science', 'OTHERS']]) {
  p(`urn:li:dataPlatform:${name}`, 'dataPlatformInfo', {name, displayName, type, datasetNameDelimiter: '.'})
}
p('urn:li:tag:Legacy', 'tagProperties', {name: 'Legacy', description: 'Kept for old readers'})
p('urn:li:tag:NeedsDocumentation', 'tagProperties', {name: 'NeedsDocumentation', description: 'Nobody has written this up yet'})

p(KAFKA, 'datasetProperties', {name: 'SampleKafkaDataset', description: 'Raw click events as they arrive', customProperties: {partitions: '12'}})
p(KAFKA, 'schemaMetadata', schema('kafka', 'SampleKafkaDataset', [field('event_id', 'StringType', 'string', 'Event key'), field('user_id', 'NumberType', 'long'), field('payload', 'StringType', 'string')]))
p(KAFKA, 'ownership', owners(['urn:li:corpuser:jdoe', 'DATAOWNER']))
p(KAFKA, 'institutionalMemory', {elements: [{url: 'https://example.org/runbooks/clicks', description: 'Runbook', createStamp: stamp}]})

p(HDFS, 'schemaMetadata', schema('hdfs', 'SampleHdfsDataset', [field('event_id', 'StringType', 'string'), field('user_id', 'NumberType', 'long'), field('day', 'DateType', 'date')]))
p(HDFS, 'ownership', owners(['urn:li:corpuser:jdoe', 'DATAOWNER']))
p(HDFS, 'upstreamLineage', upstream(KAFKA))
p(HDFS, 'institutionalMemory', {elements: [{url: 'https://example.org/docs/hdfs-landing', description: 'Sample doc', createStamp: stamp}]})

p('urn:li:container:sampledb', 'containerProperties', {name: 'sample_db', description: 'The warehouse database'})
p('urn:li:container:sampledb', 'subTypes', {typeNames: ['Database']})
p('urn:li:container:sampledb', 'dataPlatformInstance', {platform: 'urn:li:dataPlatform:hive'})
p('urn:li:container:sampleschema', 'containerProperties', {name: 'events', description: 'Event tables'})
p('urn:li:container:sampleschema', 'subTypes', {typeNames: ['Schema']})
p('urn:li:container:sampleschema', 'dataPlatformInstance', {platform: 'urn:li:dataPlatform:hive'})
p('urn:li:container:sampleschema', 'container', {container: 'urn:li:container:sampledb'})

p(HIVE, 'schemaMetadata', schema('hive', 'SampleHiveDataset', [field('user_id', 'NumberType', 'bigint', 'Who clicked'), field('clicks', 'NumberType', 'int'), field('day', 'DateType', 'date')]))
p(HIVE, 'ownership', owners(['urn:li:corpuser:jdoe', 'DATAOWNER'], ['urn:li:corpuser:datahub', 'DATAOWNER']))
p(HIVE, 'upstreamLineage', upstream(HDFS))
p(HIVE, 'globalTags', {tags: [{tag: 'urn:li:tag:Legacy'}]})
p(HIVE, 'container', {container: 'urn:li:container:sampleschema'})
p(HIVE, 'datasetProfile', {timestampMillis: T, rowCount: 1200, columnCount: 3, fieldProfiles: [
  {fieldPath: 'user_id', uniqueCount: 310, uniqueProportion: 0.258, nullCount: 0, nullProportion: 0, min: '1', max: '998', mean: '501.2', median: '497', sampleValues: ['12', '77', '301']},
  {fieldPath: 'clicks', uniqueCount: 40, uniqueProportion: 0.033, nullCount: 12, nullProportion: 0.01, min: '0', max: '57', mean: '6.4', median: '4'},
]})

// A long name downstream of the Hive table: the lineage graph wraps it without overlapping its neighbours.
const LONG = ds('hive', 'sample_db.events.user_clicks_aggregated_by_day_and_region_v2')
p(LONG, 'datasetProperties', {name: 'user_clicks_aggregated_by_day_and_region_v2', description: 'Clicks per user, day and region'})
p(LONG, 'upstreamLineage', upstream(HIVE))
p(LONG, 'container', {container: 'urn:li:container:sampleschema'})

p(LOGGING, 'datasetProperties', {name: 'logging_events', description: 'Application log lines, one row per event'})
p(LOGGING, 'schemaMetadata', schema('hive', 'logging_events', [field('event_name', 'StringType', 'VARCHAR(length=200)'), field('event_data', 'StringType', 'string'), field('ts', 'TimeType', 'timestamp')]))
p(LOGGING, 'ownership', owners(['urn:li:corpuser:jdoe', 'DATAOWNER']))
p(FCT, 'datasetProperties', {name: 'fct_users_created', description: 'Users created, by day'})
p(FCT, 'schemaMetadata', schema('hive', 'fct_users_created', [field('user_name', 'StringType', 'string'), field('created_at', 'TimeType', 'timestamp')]))
p(FCT, 'ownership', owners(['urn:li:corpuser:jdoe', 'DATAOWNER']))
p(FCT, 'upstreamLineage', upstream(LOGGING, [{
  upstreamType: 'FIELD_SET', upstreams: [`urn:li:schemaField:(${LOGGING},event_data)`],
  downstreamType: 'FIELD', downstreams: [`urn:li:schemaField:(${FCT},user_name)`], confidenceScore: 1,
}]))

// Enough tables in one schema that a container and a search list them over more than one page.
for (let d = 1; d <= 24; d++) {
  const urn = ds('hive', `events_day_${String(d).padStart(2, '0')}`)
  p(urn, 'datasetProperties', {name: `events_day_${String(d).padStart(2, '0')}`, description: `Events of day ${d}, one partition a day`})
  p(urn, 'container', {container: 'urn:li:container:sampleschema'})
}

const MODEL = 'urn:li:mlModel:(urn:li:dataPlatform:science,scienceModel,PROD)'
p(MODEL, 'mlModelProperties', {description: 'Scores how likely a visitor is to sign up.', customProperties: {}, tags: []})
p(MODEL, 'ownership', owners(['urn:li:corpuser:jdoe', 'DATAOWNER']))

p('urn:li:glossaryNode:ClientsAndAccounts', 'glossaryNodeInfo', {name: 'ClientsAndAccounts', definition: 'Provides basic concepts such as account, account holder and balance.'})
p('urn:li:glossaryNode:ClientsAndAccounts', 'ownership', owners(['urn:li:corpuser:jdoe', 'DATAOWNER']))
for (const [term, definition] of [['CustomerAccount', 'An account a customer holds with us'], ['SavingAccount', 'An account that earns interest'], ['AccountBalance', 'What an account holds at the end of a day']]) {
  p(`urn:li:glossaryTerm:${term}`, 'glossaryTermInfo', {name: term, definition, termSource: 'INTERNAL', parentNode: 'urn:li:glossaryNode:ClientsAndAccounts'})
  p(`urn:li:glossaryTerm:${term}`, 'ownership', owners(['urn:li:corpuser:jdoe', 'DATAOWNER']))
}

writeFileSync(new URL('../test/fixtures/catalog/catalog-sample.json', import.meta.url), JSON.stringify(out, null, 1) + '\n')
console.log(`wrote ${out.length} proposals`)
