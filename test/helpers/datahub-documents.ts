/**
 * The GraphQL documents of DataHub's built web app (`../shared/clients/datahub-web-react-build`),
 * read out of its JavaScript bundles: Apollo's `gql` templates, whose `${fragment}` placeholders
 * are dropped and whose fragments are put back by name, as codegen's documents hold them.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {
  type DefinitionNode, type DocumentNode, type FragmentDefinitionNode, getNamedType, type GraphQLInputType, type GraphQLSchema, isEnumType, isInputObjectType, isListType,
  isNonNullType, Kind, type OperationDefinitionNode, parse, typeFromAST, visit,
} from 'graphql'

export interface AppOperation {
  name: string
  kind: 'query' | 'mutation' | 'subscription'
  document: DocumentNode
}

/** Template texts that start with a GraphQL definition. */
const TEMPLATE = /`(\s*(?:query|mutation|subscription|fragment)\s[^`]*)`/g

export function appOperations(buildDir: string): AppOperation[] {
  const assets = join(buildDir, 'assets')
  const fragments = new Map<string, FragmentDefinitionNode>()
  const operations = new Map<string, OperationDefinitionNode>()
  for (const f of readdirSync(assets).filter((n) => n.endsWith('.js')).sort()) {
    const js = readFileSync(join(assets, f), 'utf8')
    if (!js.includes('query ') && !js.includes('mutation ') && !js.includes('fragment ')) continue
    for (const m of js.matchAll(TEMPLATE)) {
      const text = m[1]!.replace(/\$\{[^}]*\}/g, '')
      let doc: DocumentNode
      try {
        doc = parse(text)
      } catch {
        continue // prose in a template string, not a document
      }
      for (const d of doc.definitions) {
        if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
        else if (d.kind === Kind.OPERATION_DEFINITION && d.name) operations.set(d.name.value, d)
      }
    }
  }
  const out: AppOperation[] = []
  for (const [name, op] of operations) {
    const used = new Map<string, FragmentDefinitionNode>()
    const collect = (node: DefinitionNode) =>
      visit(node, {
        FragmentSpread(s) {
          const frag = fragments.get(s.name.value)
          if (frag && !used.has(s.name.value)) {
            used.set(s.name.value, frag)
            collect(frag)
          }
        },
      })
    collect(op)
    out.push({name, kind: op.operation as AppOperation['kind'], document: {kind: Kind.DOCUMENT, definitions: [op, ...used.values()]}})
  }
  return out.sort((a, b) => a.name.localeCompare(b.name))
}

// What a client of DataHub's GraphQL would send on a page of DataHub's golden data (its bootstrap,
// domains, structured properties and forms, an MLflow golden): the web-app run test and the
// smoke-test run of `bench:graphql-coverage -- --run` make their variables from these.

/** The dataset most of DataHub's pages open: its bootstrap's Hive sample. */
export const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'

/** Queries that are actions of a switched-off feature: they answer its 400, not an empty value. */
export const SWITCHED_OFF: Record<string, string> = {
  getPresignedUploadUrl: 'file uploads',
}

/** An urn of the data loaded, for the entity type a root field reads. */
export const URN_OF: Record<string, string> = {
  dataset: DS,
  versionedDataset: DS,
  chart: 'urn:li:chart:(looker,baz1)',
  dashboard: 'urn:li:dashboard:(looker,baz)',
  dataFlow: 'urn:li:dataFlow:(airflow,dag_abc,PROD)',
  dataJob: 'urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123)',
  container: 'urn:li:container:SCHEMA',
  domain: 'urn:li:domain:marketing',
  glossaryTerm: 'urn:li:glossaryTerm:CustomerAccount',
  glossaryNode: 'urn:li:glossaryNode:ClientsAndAccounts',
  tag: 'urn:li:tag:Legacy',
  corpUser: 'urn:li:corpuser:jdoe',
  corpGroup: 'urn:li:corpGroup:bfoo',
  mlModel: 'urn:li:mlModel:(urn:li:dataPlatform:mlflow,test-model_1,PROD)',
  mlModelGroup: 'urn:li:mlModelGroup:(urn:li:dataPlatform:mlflow,test-model,PROD)',
  mlFeature: 'urn:li:mlFeature:(user_features,number_of_visits)',
  mlFeatureTable: 'urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,user_features)',
  mlPrimaryKey: 'urn:li:mlPrimaryKey:(user_features,user_id)',
  dataProcessInstance: 'urn:li:dataProcessInstance:2666299269d6ebea994d5ec0c29e3aca',
  structuredProperty: 'urn:li:structuredProperty:test.Property1',
  form: 'urn:li:form:my-test-no-verification-3',
  dataPlatform: 'urn:li:dataPlatform:hive',
  assertion: 'urn:li:assertion:358c683782c93c2fc2bd4bdd4fdb0153',
  query: 'urn:li:query:test-query',
  post: 'urn:li:post:326e42b3-2965-47d1-9660-50e513af7d6e',
  schemaField: `urn:li:schemaField:(${DS},field_foo)`,
  // Types none of the files loaded holds: the answer is null, as DataHub's for an unknown urn.
  dataProduct: 'urn:li:dataProduct:not-loaded',
  document: 'urn:li:document:not-loaded',
}

/** The urn for a variable or input field, from its name and the operation's first field. */
export function urnFor(name: string, rootField: string): string {
  if (/actor|user|owner|creator|assignee/i.test(name)) return URN_OF.corpUser!
  if (/group/i.test(name)) return URN_OF.corpGroup!
  if (/domain/i.test(name)) return URN_OF.domain!
  if (/term/i.test(name)) return URN_OF.glossaryTerm!
  if (/node/i.test(name)) return URN_OF.glossaryNode!
  if (/tag/i.test(name)) return URN_OF.tag!
  if (/form/i.test(name)) return URN_OF.form!
  if (/propert/i.test(name) && !/entity/i.test(name)) return URN_OF.structuredProperty!
  if (/platform/i.test(name)) return URN_OF.dataPlatform!
  return URN_OF[rootField] ?? DS
}

/** A value of an input type for a variable or field `name`: what the web app would send on a page of the data loaded. */
function valueOf(type: GraphQLInputType, name: string, rootField: string, depth = 0): unknown {
  if (isNonNullType(type)) return valueOf(type.ofType, name, rootField, depth)
  if (isListType(type)) {
    if (name === 'types') return ['DATASET']
    if (/types$/i.test(name) || /filters|orFilters|and$|or$|facets|aspectNames|sort|path/i.test(name)) return []
    return [valueOf(type.ofType, name.replace(/s$/, ''), rootField, depth)]
  }
  if (isEnumType(type)) {
    const values = type.getValues().map((v) => v.name)
    return values.includes('UPSTREAM') ? 'UPSTREAM' : values.includes('DATASET') ? 'DATASET' : values[0]
  }
  if (isInputObjectType(type)) {
    if (depth > 4) return {}
    const out: Record<string, unknown> = {}
    for (const f of Object.values(type.getFields())) {
      if (isNonNullType(f.type) || ['start', 'count', 'query', 'urn', 'types'].includes(f.name)) out[f.name] = valueOf(f.type, f.name, rootField, depth + 1)
    }
    return out
  }
  switch (type.name) {
    case 'Boolean':
      return false
    case 'Int':
    case 'Float':
    case 'Long':
      return name === 'count' || name === 'limit' ? 10 : /time|millis/i.test(name) ? Date.now() : 0
    default:
      if (name === 'query') return '*'
      if (/urn/i.test(name) || name === 'resource' || name === 'entity') return urnFor(name, rootField)
      return name === 'id' ? 'mdcli-run-test' : '*'
  }
}

export function variablesFor(schema: GraphQLSchema, op: OperationDefinitionNode): Record<string, unknown> {
  const first = op.selectionSet.selections.find((s) => s.kind === Kind.FIELD)
  const rootField = first?.kind === Kind.FIELD ? first.name.value : ''
  const vars: Record<string, unknown> = {}
  for (const v of op.variableDefinitions ?? []) {
    if (v.type.kind !== Kind.NON_NULL_TYPE && !['start', 'count', 'query', 'urn'].includes(v.variable.name.value)) continue
    const type = typeFromAST(schema, v.type as never) as GraphQLInputType | undefined
    if (type && getNamedType(type)) vars[v.variable.name.value] = valueOf(type, v.variable.name.value, rootField)
  }
  return vars
}

