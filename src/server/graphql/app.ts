/**
 * Resolvers of app.graphql (`me`, `appConfig`) and of `privileges` on entities: what the caller
 * may do, from the access policies, and which features this server has.
 */
import {PLATFORM_PRIVILEGES, privilegeLabel, RESOURCE_PRIVILEGES, RESOURCE_TYPE_LABELS} from '../../catalog/access/privileges.js'
import {SERVER_VERSION} from '../rest.js'
import {type Ent, type GqlContext, graphqlEntityType, stub} from './context.js'
import type {Resolver} from './entities.js'

type Obj = Record<string, any>

/** A privilege check: held when any one of the names is granted. */
const anyOf = (granted: Set<string>, ...names: string[]) => granted.has('*') || names.some((n) => granted.has(n))

/** Platform privileges of features mdcli has; the rest of PlatformPrivileges is false. */
function platformPrivileges(g: Set<string>): Obj {
  const identities = anyOf(g, 'MANAGE_USERS_AND_GROUPS')
  return {
    viewAnalytics: false,
    managePolicies: anyOf(g, 'MANAGE_POLICIES'),
    manageIdentities: identities,
    manageUsersAndGroups: identities,
    generatePersonalAccessTokens: anyOf(g, 'GENERATE_PERSONAL_ACCESS_TOKENS'),
    createDomains: anyOf(g, 'CREATE_DOMAINS', 'MANAGE_DOMAINS'),
    manageDomains: anyOf(g, 'MANAGE_DOMAINS'),
    manageIngestion: false,
    manageSecrets: false,
    manageTokens: anyOf(g, 'MANAGE_ACCESS_TOKENS'),
    viewTests: false,
    manageTests: false,
    manageGlossaries: anyOf(g, 'MANAGE_GLOSSARIES'),
    manageUserCredentials: anyOf(g, 'MANAGE_USER_CREDENTIALS'),
    createTags: anyOf(g, 'CREATE_TAGS', 'MANAGE_TAGS'),
    manageTags: anyOf(g, 'MANAGE_TAGS'),
    manageGlobalViews: false,
    manageOwnershipTypes: false,
    manageGlobalAnnouncements: false,
    createBusinessAttributes: false,
    manageBusinessAttributes: false,
    manageStructuredProperties: false,
    viewStructuredPropertiesPage: false,
    viewManageTags: anyOf(g, 'MANAGE_TAGS', 'VIEW_MANAGE_TAGS'),
    createLogicalModels: false,
    manageGlobalSettings: false,
    manageApplications: false,
    manageFeatures: false,
    manageHomePageTemplates: false,
    manageDocuments: false,
    manageServiceAccounts: false,
  }
}

const privilege = (type: string): Obj => ({type, ...privilegeLabel(type)})

function appConfig(): Obj {
  return {
    appVersion: SERVER_VERSION,
    // Every request carries a personal access token (or the server runs with auth off).
    authConfig: {tokenAuthEnabled: true},
    analyticsConfig: {enabled: false},
    policiesConfig: {
      enabled: true,
      platformPrivileges: PLATFORM_PRIVILEGES.map(privilege),
      resourcePrivileges: Object.entries(RESOURCE_PRIVILEGES).map(([resourceType, list]) => ({
        resourceType,
        resourceTypeDisplayName: RESOURCE_TYPE_LABELS[resourceType] ?? resourceType,
        entityType: graphqlEntityType(resourceType),
        privileges: list.map(privilege),
      })),
    },
    identityManagementConfig: {enabled: true},
    managedIngestionConfig: {enabled: false},
    lineageConfig: {supportsImpactAnalysis: true},
    visualConfig: {
      // DataHub's default favicon, which its web app's build carries; the app sets the page's icon
      // to this value as it boots, so null made every page load ask for `/null`.
      logoUrl: null, faviconUrl: '/assets/icons/favicon.ico', appTitle: 'mdcli', hideGlossary: false, queriesTab: {queriesTabResultSize: 20}, entityProfiles: {domain: {defaultTab: null}}, searchResult: {enableNameHighlight: false}, showFullTitleInLineage: false,
      theme: {themeId: null},
      // No application entities here: their section and navigation stay hidden.
      application: {showSidebarSectionWhenEmpty: false, showApplicationInNavigation: false},
    },
    // The web app's own defaults (autoCompleteForMultiple is served).
    searchBarConfig: {apiVariant: 'AUTOCOMPLETE_FOR_MULTIPLE'},
    searchCardConfig: {showDescription: false},
    searchFlagsConfig: {defaultSkipHighlighting: false},
    homePageConfig: {firstInPersonalSidebar: 'YOUR_ASSETS'},
    telemetryConfig: {enableThirdPartyLogging: false},
    testsConfig: {enabled: false},
    viewsConfig: {enabled: false},
    featureFlags: {
      readOnlyModeEnabled: false,
      // aggregateAcrossEntities, browseV2 and autoCompleteForMultiple are served.
      showSearchFiltersV2: true,
      showBrowseV2: true,
      showAutoCompleteResults: true,
      // Parent domains are stored and moveDomain moves them.
      nestedDomainsEnabled: true,
      platformBrowseV2: false,
      lineageGraphV2: false,
      showAcrylInfo: false,
      erModelRelationshipFeatureEnabled: false,
      showAccessManagement: false,
      businessAttributeEntityEnabled: false,
      dataContractsEnabled: false,
      editableDatasetNameEnabled: false,
      themeV2Enabled: false,
      themeV2Default: false,
      themeV2Toggleable: false,
      schemaFieldCLLEnabled: false,
      showSeparateSiblings: false,
      showManageStructuredProperties: false,
      hideDbtSourceInLineage: false,
      schemaFieldLineageIgnoreStatus: false,
      showNavBarRedesign: false,
      entityVersioningEnabled: false,
      // Redesigns and features whose queries mdcli does not serve stay off, as in the app's defaults.
      showHasSiblingsFilter: false,
      showSearchBarAutocompleteRedesign: false,
      showManageTags: false,
      showIntroducePage: false,
      showIngestionPageRedesign: false,
      ingestionOnboardingRedesignV1: false,
      showLineageExpandMore: false,
      showLineageFilterNodes: false,
      showDefaultExternalLinks: true,
      showStatsTabRedesign: false,
      showHomePageRedesign: false,
      showProductUpdates: false,
      lineageGraphV3: false,
      logicalModelsEnabled: false,
      showHomepageUserRole: false,
      assetSummaryPageV1: false,
      datasetSummaryPageV1: false,
      metricsEnabled: false,
      documentationFileUploadV1: false,
      contextDocumentsEnabled: false,
      hideLineageInSearchCards: false,
      dataProductLineageEnabled: false,
      glossaryBasedPoliciesEnabled: false,
      multipleDataProductsPerAsset: false,
      showTestsInHealthIcon: false,
      i18nEnabled: true,
      browserTracingEnabled: false,
      browserWebVitalsEnabled: false,
    },
    chromeExtensionConfig: {enabled: false, lineageEnabled: false},
  }
}

export const APP_QUERY_FIELDS: Record<string, Resolver> = {
  me: async (_s, _a, ctx: GqlContext) => {
    return {corpUser: stub(ctx.actor.urn, 'corpuser'), platformPrivileges: platformPrivileges(await ctx.catalog.grantedPrivileges(ctx.actor))}
  },
  appConfig: () => appConfig(),
  latestProductUpdate: () => null,
  globalViewsSettings: () => ({defaultView: null}),
  globalHomePageSettings: () => ({defaultTemplate: null}),
}

/**
 * An entity's `privileges` (DataHub's EntityPrivileges): what the caller may edit there, from
 * the privileges the policies grant on it. Proposals and sharing do not exist here (false);
 * usage, profiles and operations are served to every caller, so viewing them is true.
 */
export const entityPrivilegesField: Resolver = async (src: Ent, _a, ctx: GqlContext) => {
  const g = await ctx.catalog.grantedPrivileges(ctx.actor, src.urn)
  const edit = (p: string) => anyOf(g, 'EDIT_ENTITY', p)
  const glossary = src.entityType === 'glossaryTerm' || src.entityType === 'glossaryNode'
  return {
    canManageChildren:
      src.entityType === 'glossaryNode' ? anyOf(g, 'MANAGE_GLOSSARIES', 'MANAGE_GLOSSARY_CHILDREN', 'MANAGE_ALL_GLOSSARY_CHILDREN') : src.entityType === 'domain' ? anyOf(g, 'MANAGE_DOMAINS') : false,
    canManageEntity: glossary ? anyOf(g, 'MANAGE_GLOSSARIES', 'MANAGE_ALL_GLOSSARY_CHILDREN') : src.entityType === 'domain' ? anyOf(g, 'MANAGE_DOMAINS', 'DELETE_ENTITY') : anyOf(g, 'DELETE_ENTITY'),
    canEditLineage: edit('EDIT_LINEAGE'),
    canEditEmbed: edit('EDIT_ENTITY_EMBED'),
    canEditQueries: edit('EDIT_ENTITY_QUERIES'),
    canEditProperties: edit('EDIT_ENTITY_PROPERTIES'),
    canEditTags: edit('EDIT_ENTITY_TAGS'),
    canEditGlossaryTerms: edit('EDIT_ENTITY_GLOSSARY_TERMS'),
    canEditDescription: edit('EDIT_ENTITY_DOCS'),
    canEditLinks: edit('EDIT_ENTITY_DOC_LINKS'),
    canEditDomains: edit('EDIT_DOMAINS_PRIVILEGE'),
    canEditDataProducts: edit('EDIT_ENTITY_DATA_PRODUCTS'),
    canEditOwners: edit('EDIT_ENTITY_OWNERS'),
    canEditIncidents: edit('EDIT_ENTITY_INCIDENTS'),
    canEditAssertions: edit('EDIT_ENTITY_ASSERTIONS'),
    canEditDeprecation: edit('EDIT_DEPRECATION_PRIVILEGE'),
    canEditAssertionOwners: edit('EDIT_ENTITY_ASSERTIONS') && edit('EDIT_ENTITY_OWNERS'),
    canManageAssetSummary: false,
    canEditSchemaFieldTags: edit('EDIT_DATASET_COL_TAGS'),
    canEditSchemaFieldGlossaryTerms: edit('EDIT_DATASET_COL_GLOSSARY_TERMS'),
    canEditSchemaFieldDescription: edit('EDIT_DATASET_COL_DESCRIPTION'),
    canProposeDescription: false,
    canProposeTags: false,
    canProposeGlossaryTerms: false,
    canProposeSchemaFieldDescription: false,
    canProposeSchemaFieldTags: false,
    canProposeSchemaFieldGlossaryTerms: false,
    canShareEntity: false,
    canViewDatasetUsage: true,
    canViewDatasetProfile: true,
    canViewDatasetOperations: true,
  }
}
