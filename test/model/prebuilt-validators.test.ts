/**
 * The validators the build generates for the aspects a first start writes
 * (scripts/build-validators.mjs) are the ones validation uses, and judge every value as the
 * validators compiled at run time from the same schemas do: the same verdict, the same errors.
 */
import {execFileSync} from 'node:child_process'
import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'
import {Ajv, type ValidateFunction} from 'ajv'
import {expect} from 'chai'
import {ASPECT_SPECS} from '../../src/model/aspects/index.js'
import {AJV_OPTIONS, aspectProblems, PREBUILT_ASPECTS, PREBUILT_FILE, validatorFor} from '../../src/model/schemas.js'
import {DEFAULT_POLICIES, ROLES, ROOT_USER} from '../../src/catalog/access/default-policies.js'

const load = () => createRequire(new URL('../../src/model/schemas.js', import.meta.url))(`./${PREBUILT_FILE}`) as Record<string, ValidateFunction>

/** Values of every kind for an aspect: good ones, and each way a value can be wrong. */
function samples(name: string): unknown[] {
  const good: Record<string, unknown[]> = {
    dataHubRoleInfo: [{name: 'Admin', description: 'The Admin role', editable: false}],
    dataHubPolicyInfo: DEFAULT_POLICIES.map((p) => p.info),
    corpUserInfo: [{active: true, displayName: 'Admin', title: 'Root user'}, {active: false, email: 'a@b.c', fullName: 'A B'}],
    roleMembership: [{roles: [ROLES.Admin]}],
    dataHubAccessTokenInfo: [{name: 't', actorUrn: ROOT_USER, ownerUrn: ROOT_USER, createdAt: 1, expiresAt: 2}],
    corpUserCredentials: [{salt: 's', hashedPassword: 'h', passwordResetToken: 'r', passwordResetTokenExpirationTimeMillis: 3}],
  }
  const bad: unknown[] = [null, 7, 'text', [], {}, {unknownField: 1}]
  // Each good value with each of its fields set to the wrong kind of value, removed, or doubled by an unknown one.
  for (const v of good[name] ?? []) {
    for (const k of Object.keys(v as object)) {
      for (const wrong of [null, 1.5, 'x', true, [], {}, ['not an urn'], 'x'.repeat(600)]) bad.push({...(v as object), [k]: wrong})
      const {[k]: _, ...without} = v as Record<string, unknown>
      bad.push(without)
    }
    bad.push({...(v as object), extra: 1})
  }
  return [...(good[name] ?? []), ...bad]
}

describe('prebuilt validators (the aspects a first start writes)', () => {
  it('the build wrote one for each aspect, and validation uses it', () => {
    const built = load()
    expect(Object.keys(built).sort()).to.deep.equal([...PREBUILT_ASPECTS].sort())
    for (const name of PREBUILT_ASPECTS) {
      expect(validatorFor(name), name).to.equal(built[name])
      expect((built[name] as {schemaText?: string}).schemaText, name).to.equal(JSON.stringify(ASPECT_SPECS[name]!.schema))
    }
    // Any other aspect is compiled as before.
    expect(validatorFor('datasetProperties')).to.not.equal(undefined)
  })

  it('one made from another schema than this build holds (TypeScript emitted again since) is not used', async () => {
    const stale = load().roleMembership as ValidateFunction & {schemaText?: string}
    const text = stale.schemaText
    stale.schemaText = JSON.stringify({type: 'object'})
    try {
      // A fresh instance of the module (its own cache of validators), reading the same generated file.
      const fresh = (await import(new URL('../../src/model/schemas.js?stale', import.meta.url).href)) as {validatorFor(n: string): ValidateFunction; aspectProblems(n: string, v: unknown): string[]}
      expect(fresh.validatorFor('roleMembership')).to.not.equal(stale)
      expect(fresh.validatorFor('dataHubRoleInfo')).to.equal(load().dataHubRoleInfo)
      expect(fresh.aspectProblems('roleMembership', {roles: ['nope']})).to.deep.equal(['/roles/0: must match pattern "^urn:li:"'])
    } finally {
      stale.schemaText = text
    }
  })

  it('a process that validates only those aspects never loads ajv itself (a tenth of the server thread\'s start)', () => {
    // In a process of its own: this one has ajv loaded already.
    const schemas = fileURLToPath(new URL('../../src/model/schemas.js', import.meta.url))
    const script = `
      import {createRequire} from 'node:module'
      const {validateAspect} = await import(${JSON.stringify(schemas)})
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\/]ajv[\\/]dist[\\/]ajv\\.js$/.test(k))
      validateAspect('dataHubRoleInfo', {name: 'Admin', description: 'd', editable: false})
      validateAspect('roleMembership', {roles: ['urn:li:dataHubRole:Admin']})
      const before = loaded()
      validateAspect('datasetProperties', {name: 'orders'})
      console.log(JSON.stringify({before, after: loaded()}))`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'})
    // Any other aspect still gets its schema compiled, ajv loading then.
    expect(JSON.parse(out)).to.deep.equal({before: false, after: true})
  })

  it('judge every value as the schema compiled at run time does, errors included', () => {
    const built = load()
    const ajv = new Ajv(AJV_OPTIONS)
    let checked = 0
    for (const name of PREBUILT_ASPECTS) {
      const fresh = ajv.compile(ASPECT_SPECS[name]!.schema)
      const pre = built[name]!
      let valid = 0
      for (const value of samples(name)) {
        const a = fresh(value)
        const b = pre(value)
        expect(b, `${name} ${JSON.stringify(value)?.slice(0, 120)}`).to.equal(a)
        expect(pre.errors ?? null, `${name} ${JSON.stringify(value)?.slice(0, 120)}`).to.deep.equal(fresh.errors ?? null)
        if (a) valid++
        checked++
      }
      // Each aspect's good values pass, and most of the rest fail.
      expect(valid, name).to.be.at.least(1)
    }
    expect(checked).to.be.greaterThan(200)
    // The messages a client sees come from those errors.
    expect(aspectProblems('roleMembership', {roles: ['nope']})).to.deep.equal(['/roles/0: must match pattern "^urn:li:"'])
  })
})
