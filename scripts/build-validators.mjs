// Writes the validators of the aspects a first start writes (PREBUILT_ASPECTS in
// src/model/schemas.ts) as ajv's standalone code, beside the compiled schemas module, so that a
// first start does not compile them (see there). Made from the same schemas and options as the
// validators compiled at run time; test/model/prebuilt-validators.test.ts holds them equal.
// CommonJS: ajv's standalone code requires its runtime helpers even when asked for a module.
// Runs after the TypeScript is emitted (it reads the schemas from dist/).
//
//   node scripts/build-validators.mjs
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Ajv} from 'ajv'
import standaloneCode from 'ajv/dist/standalone/index.js'

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const MODEL = join(ROOT, 'dist', 'src', 'model')
const {AJV_OPTIONS, PREBUILT_ASPECTS, PREBUILT_FILE} = await import(join(MODEL, 'schemas.js'))
const {ASPECT_SPECS} = await import(join(MODEL, 'aspects', 'index.js'))

const ajv = new Ajv({...AJV_OPTIONS, code: {source: true}})
for (const name of PREBUILT_ASPECTS) {
  const spec = ASPECT_SPECS[name]
  if (!spec) throw new Error(`build-validators: no aspect ${name} (PREBUILT_ASPECTS in src/model/schemas.ts)`)
  ajv.addSchema(spec.schema, name)
}
// Each validator carries the text of the schema it was made from: a dist/ whose TypeScript was
// emitted again without this step (a schema changed since) compiles that schema at run time.
const stamps = PREBUILT_ASPECTS.map((n) => `exports[${JSON.stringify(n)}].schemaText = ${JSON.stringify(JSON.stringify(ASPECT_SPECS[n].schema))};`)
writeFileSync(join(MODEL, PREBUILT_FILE), `${standaloneCode(ajv, Object.fromEntries(PREBUILT_ASPECTS.map((n) => [n, n])))}\n${stamps.join('\n')}\n`)
