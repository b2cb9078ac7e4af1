/**
 * The GraphQL endpoint of `mdcli lite`: `POST|GET /api/graphql` (GraphQL over HTTP through
 * graphql-http, adapted to our Router; a plain POST takes a shorter way to the same answer, see
 * `plainPost`).
 *
 * Per request: the Router has already resolved the actor and bounds the body size; here the
 * document is looked up in the cache or parsed (token and byte limits) and validated (graphql's
 * rules plus the depth limit) once, then executed with a fresh context (actor, catalog, loader).
 */
import {jsonTooDeep, MAX_JSON_DEPTH} from '../../model/limits.js'
import {createHandler, type Response as HandlerResponse} from 'graphql-http'
import {type ExecutionArgs, type ExecutionResult, getOperationAST, GraphQLError, KnownTypeNamesRule, parse, specifiedRules, validate} from 'graphql'
import {CompiledExecutor, isPromise} from './compiled.js'
import type {Catalog} from '../../catalog/catalog.js'
import {BugError, TooLargeError} from '../../errors.js'
import {type HttpRequest, type HttpResponse, json, type Logger, type RequestContext, type Router} from '../http.js'
import {EntityLoader, type GqlContext} from './context.js'
import {extensions, makeFormatError, UNKNOWN_ERROR, unavailableIn} from './errors.js'
import {
  type CachedDocument, costLimitRule, DEFAULT_DOCUMENT_CACHE_SIZE, DEFAULT_MAX_COST, DEFAULT_MAX_DEPTH, DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_TOKENS, DocumentCache, depthLimitRule, protoKeyRule,
} from './limits.js'
import {buildCatalogSchema} from './schema.js'
import {lazyKnownTypeNamesRule, mergedRule} from './validation.js'
import {DEFAULT_MAX_RESULT_WINDOW} from './search.js'
import type {ChangeLog} from '../../events/changelog.js'

export {DEFAULT_MAX_RESULT_WINDOW} from './search.js'

export interface GraphqlOptions {
  logger: Logger
  /** Largest `start + count` of an offset search. */
  maxResultWindow?: number
  maxDepth?: number
  maxDocumentBytes?: number
  maxTokens?: number
  maxCost?: number
  documentCacheSize?: number
  changeLog?: ChangeLog
}

const GRAPHQL_RESPONSE = 'application/graphql-response+json'

/** The response media type graphql-http negotiates from an Accept header (it refuses the rest with 406). */
export function acceptedMediaType(accept: string | string[] | undefined): string {
  return acceptableMediaType(accept) ?? 'application/json'
}

/** The media type graphql-http answers for an Accept header, or null where it answers 406. */
function acceptableMediaType(accept: string | string[] | undefined): string | null {
  // Clients send the same Accept header on every request.
  if (typeof accept === 'string') {
    let media = MEDIA_BY_ACCEPT.get(accept)
    if (media === undefined) {
      media = negotiate(accept)
      if (MEDIA_BY_ACCEPT.size >= 64) MEDIA_BY_ACCEPT.clear()
      MEDIA_BY_ACCEPT.set(accept, media)
    }
    return media
  }
  return negotiate(accept)
}

const MEDIA_BY_ACCEPT = new Map<string, string | null>()

function negotiate(accept: string | string[] | undefined): string | null {
  const list = (Array.isArray(accept) ? accept.join(',') : accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')
  for (const item of list) {
    const [mediaType, ...params] = item.split(';')
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8'
    if (mediaType === GRAPHQL_RESPONSE && charset === 'charset=utf-8') return GRAPHQL_RESPONSE
    if ((mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') && (charset === 'charset=utf-8' || charset === 'charset=utf8')) return 'application/json'
  }
  return null
}

/** Whether graphql-http reads a POST with this Content-Type as a JSON body (it answers 415 to the rest). */
function jsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false
  let ok = JSON_BY_CONTENT_TYPE.get(header)
  if (ok === undefined) {
    const [mediaType, charset = 'charset=utf-8'] = header.replace(/\s/g, '').toLowerCase().split(';')
    ok = mediaType === 'application/json' && charset === 'charset=utf-8'
    if (JSON_BY_CONTENT_TYPE.size >= 64) JSON_BY_CONTENT_TYPE.clear()
    JSON_BY_CONTENT_TYPE.set(header, ok)
  }
  return ok
}

const JSON_BY_CONTENT_TYPE = new Map<string, boolean>()

/** An optional request parameter graphql-http accepts as an object: absent, null, or a non-array object. */
const optionalObject = (v: unknown): boolean => v == null || (typeof v === 'object' && !Array.isArray(v))

export function registerGraphql(router: Router, catalog: Catalog, opts: GraphqlOptions): void {
  const serve = graphqlEndpoint(catalog, opts)
  router.on('POST', '/api/graphql', serve)
  router.on('GET', '/api/graphql', serve)
}

/** The handler of `/api/graphql`: builds the schema (the costly part) when called. */
export function graphqlEndpoint(catalog: Catalog, opts: GraphqlOptions): (ctx: RequestContext) => Promise<HttpResponse> {
  const schema = buildCatalogSchema()
  const maxResultWindow = opts.maxResultWindow ?? DEFAULT_MAX_RESULT_WINDOW
  const maxDocumentBytes = opts.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES
  const maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS
  const rules = [mergedRule([...specifiedRules.map((r) => (r === KnownTypeNamesRule ? lazyKnownTypeNamesRule : r)), depthLimitRule(opts.maxDepth ?? DEFAULT_MAX_DEPTH), costLimitRule(opts.maxCost ?? DEFAULT_MAX_COST), protoKeyRule])]
  const cache = new DocumentCache(opts.documentCacheSize ?? DEFAULT_DOCUMENT_CACHE_SIZE)
  const logger = opts.logger

  const prepare = (query: string): CachedDocument => {
    const bytes = Buffer.byteLength(query)
    if (bytes > maxDocumentBytes) {
      return {errors: [new GraphQLError(`Query document is ${bytes} bytes, over the limit of ${maxDocumentBytes} bytes`)]}
    }
    let document
    try {
      document = parse(query, {maxTokens})
    } catch (e) {
      if (e instanceof GraphQLError) return {errors: [e]}
      // A stack overflow in the parser means absurd nesting; the token limit usually stops it first.
      if (e instanceof RangeError) return {errors: [new GraphQLError('Query document is nested too deeply to parse')]}
      throw e
    }
    const errors = validate(schema, document, rules)
    return errors.length > 0 ? {errors} : {document}
  }

  /** The parsed and validated document of a query text, from the cache or prepared now. */
  const documentOf = (query: string): CachedDocument => {
    let entry = cache.get(query)
    if (!entry) {
      entry = prepare(query)
      // Oversized documents are not kept: the cache must not become the way to hold memory.
      if (!('errors' in entry) || query.length <= maxDocumentBytes) cache.set(query, entry)
    }
    return entry
  }

  const formatError = makeFormatError(logger)
  const executor = new CompiledExecutor(schema)
  const contextOf = (ctx: RequestContext): GqlContext => ({actor: ctx.actor, catalog, loader: new EntityLoader(catalog), maxResultWindow, logger, changeLog: opts.changeLog})

  /** The response to an executed operation (graphql-http's onOperation: it answers every executed request). */
  const answer = (media: string, result: ExecutionResult): HttpResponse => {
    const errors = result.errors?.map(formatError)
    const body = JSON.stringify(errors ? {...result, errors} : result)
    // The store could not be reached: 503, so clients and load balancers retry elsewhere or later.
    if (errors && unavailableIn(errors)) return {status: 503, statusText: 'Service Unavailable', headers: {'content-type': `${media}; charset=utf-8`, 'retry-after': '1'}, body}
    // A result without data failed before execution (variable coercion): a request error.
    const status = !('data' in result) && media === GRAPHQL_RESPONSE ? 400 : 200
    return {status, statusText: status === 200 ? 'OK' : 'Bad Request', headers: {'content-type': `${media}; charset=utf-8`}, body}
  }
  const handler = createHandler<HttpRequest, RequestContext, GqlContext>({
    schema,
    formatError,
    execute: (args) => executor.execute(args),
    // Serialises the result here: graphql-http's own JSON.stringify passes a replacer function,
    // which costs a call per value of every response.
    onOperation: (req, _args, result): HandlerResponse => {
      const r = answer(acceptedMediaType(req.raw.headers.accept), result as ExecutionResult)
      return [r.body as string, {status: r.status, statusText: r.statusText!, headers: r.headers as Record<string, string>}]
    },
    onSubscribe: (req, params) => {
      const entry = documentOf(params.query)
      if ('errors' in entry) return entry.errors
      return {schema, document: entry.document, operationName: params.operationName, variableValues: params.variables, contextValue: contextOf(req.context)}
    },
  })

  /**
   * The plain request (a POST of a JSON object whose query is a valid document, an operation to
   * run, an Accept header to answer) without graphql-http: its request parsing, content
   * negotiation, checks and promise hops cost about as much as executing a cached entity query.
   * The answer is the one graphql-http gives, through the same `answer`; anything else (a
   * malformed request, a document with errors, GET) is undefined here and goes to graphql-http,
   * which words the refusal.
   */
  const plainPost = (ctx: RequestContext, headers: RequestContext['request']['headers'], body: string): Promise<HttpResponse> | undefined => {
    const media = acceptableMediaType(headers.accept)
    if (media === null || !jsonContentType(headers['content-type'])) return undefined
    let params: {query?: unknown; variables?: unknown; operationName?: unknown; extensions?: unknown}
    try {
      params = JSON.parse(body)
    } catch {
      return undefined
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined
    const {query, variables, operationName} = params
    if (typeof query !== 'string' || !optionalObject(variables) || !optionalObject(params.extensions)) return undefined
    if (operationName != null && typeof operationName !== 'string') return undefined
    const entry = documentOf(query)
    if ('errors' in entry) return undefined
    const operation = getOperationAST(entry.document, operationName)
    if (!operation || operation.operation === 'subscription') return undefined
    const args: ExecutionArgs = {schema, document: entry.document, operationName, variableValues: variables as Record<string, unknown> | null | undefined, contextValue: contextOf(ctx), rootValue: undefined}
    const result = executor.execute(args)
    return isPromise(result) ? result.then((r) => answer(media, r)) : Promise.resolve(answer(media, result))
  }

  const serve = async (ctx: RequestContext): Promise<HttpResponse> => {
    let body: string | null = null
    if (ctx.method === 'POST') {
      try {
        body = await ctx.text()
      } catch (e) {
        if (!(e instanceof TooLargeError)) throw e
        return json(413, {errors: [{message: e.message, extensions: extensions(400, 'ValidationError')}]})
      }
    }
    if (body !== null && jsonTooDeep(body)) {
      return json(400, {errors: [{message: `Request body nests deeper than ${MAX_JSON_DEPTH} levels, the limit`, extensions: extensions(400, 'ValidationError')}]})
    }
    let headers = ctx.request.headers
    if (body !== null && ctx.method === 'POST' && !jsonContentType(headers['content-type'])) {
      // The router's guard let this POST through: its type is JSON (`application/*+json`) or it
      // carries an X-Mdcli / X-Requested-With header, so its body is read as JSON, as REST's is.
      // graphql-http alone would answer an empty 415. Only the charset can still be wrong.
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(headers['content-type'] ?? '')?.[1]?.toLowerCase()
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        return json(415, {errors: [{message: `Content-Type ${String(headers['content-type']).slice(0, 80)}: the body must be UTF-8 JSON`, extensions: extensions(400, 'ValidationError')}]})
      }
      headers = {...headers, 'content-type': 'application/json'}
    }
    let result: HandlerResponse
    try {
      if (body !== null && ctx.method === 'POST') {
        const plain = plainPost(ctx, headers, body)
        if (plain) return await plain
      }
      result = await handler({method: ctx.method, url: ctx.request.url, headers, body, raw: ctx.request, context: ctx})
    } catch (e) {
      // graphql-http rejects only on internal failures; the client learns nothing of them.
      logger.error(`GraphQL request failed: ${new BugError(UNKNOWN_ERROR, {cause: e}).logText()}`)
      return json(500, {errors: [{message: UNKNOWN_ERROR, extensions: extensions(500, 'DataFetchingException')}]})
    }
    const [text, init] = result
    return {status: init.status, statusText: init.statusText, headers: {...init.headers}, body: text ?? undefined}
  }
  return serve
}
