/**
 * The entity types entities-more.graphql serves, apart from their resolvers so that entities.ts
 * can list them without importing the resolvers (which import entities.ts).
 */
export const MORE_GQL_TYPE_NAME: Record<string, string> = {
  dataProduct: 'DataProduct',
  structuredProperty: 'StructuredPropertyEntity',
  dataType: 'DataTypeEntity',
  entityType: 'EntityTypeEntity',
  form: 'Form',
  query: 'QueryEntity',
  assertion: 'Assertion',
  dataProcessInstance: 'DataProcessInstance',
  post: 'Post',
  dataHubPolicy: 'DataHubPolicy',
  dataHubRole: 'DataHubRole',
  schemaField: 'SchemaFieldEntity',
  document: 'Document',
  mlModelDeployment: 'MLModelDeployment',
  platformResource: 'PlatformResource',
}

