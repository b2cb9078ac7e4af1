/**
 * Edits on an entity page, each one GraphQL mutation of DataHub's API: tags, glossary terms,
 * owners, domain, deprecation, and a column's description and tags. A refusal (403, a bad urn)
 * shows the server's message beside the control and leaves the page as it was; success reloads
 * the entity.
 */
import {useState, type FormEvent, type ReactNode} from 'react'
import {gql} from './api.js'

type Obj = Record<string, any>

/** `pii` → `urn:li:tag:pii`; a urn stays as it is. */
export const asUrn = (value: string, type: string): string => (value.trim().startsWith('urn:li:') ? value.trim() : `urn:li:${type}:${value.trim()}`)

/** Runs a mutation; reports the server's message on failure. */
function useMutation(onDone: () => void): {run: (query: string, variables: Obj, reload?: boolean) => Promise<boolean>; error?: string; busy: boolean} {
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const run = async (query: string, variables: Obj, reload = true) => {
    setBusy(true)
    try {
      await gql(query, variables)
      setError(undefined)
      if (reload) onDone()
      return true
    } catch (e) {
      setError((e as Error).message)
      return false
    } finally {
      setBusy(false)
    }
  }
  return {run, error, busy}
}

const Alert = ({text}: {text?: string}) =>
  text ? (
    <p role="alert" className="error">
      {text}
    </p>
  ) : null

/** One text field and a button: adds something named by urn or by name. */
function AddForm({id, label, placeholder, onAdd}: {id: string; label: string; placeholder: string; onAdd: (value: string) => Promise<boolean>}) {
  const [value, setValue] = useState('')
  const submit = async (ev: FormEvent) => {
    ev.preventDefault()
    if (await onAdd(value)) setValue('')
  }
  return (
    <form onSubmit={submit} className="inline" aria-label={label}>
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(e) => setValue(e.target.value)} placeholder={placeholder} />
      <button type="submit" disabled={!value.trim()}>
        Add
      </button>
    </form>
  )
}

/** A chip with a remove button. */
function Chip({children, onRemove, name}: {children: ReactNode; onRemove: () => void; name: string}) {
  return (
    <span className="tag">
      {children}
      <button className="x" aria-label={`Remove ${name}`} title={`Remove ${name}`} onClick={onRemove}>
        ×
      </button>
    </span>
  )
}

export function TagsEditor({urn, tags, onDone}: {urn: string; tags: Obj[]; onDone: () => void}) {
  const m = useMutation(onDone)
  return (
    <div>
      <h3>Tags</h3>
      <p>
        {tags.map((t) => (
          <Chip key={t.tag.urn} name={`tag ${t.tag.name}`} onRemove={() => void m.run('mutation r($input: TagAssociationInput!) { removeTag(input: $input) }', {input: {tagUrn: t.tag.urn, resourceUrn: urn}})}>
            {t.tag.name}
          </Chip>
        ))}
        {tags.length === 0 && <span className="meta">No tags.</span>}
      </p>
      <AddForm id="add-tag" label="Add tag" placeholder="pii" onAdd={(v) => m.run('mutation add($input: TagAssociationInput!) { addTag(input: $input) }', {input: {tagUrn: asUrn(v, 'tag'), resourceUrn: urn}})} />
      <Alert text={m.error} />
    </div>
  )
}

export function TermsEditor({urn, terms, onDone, link}: {urn: string; terms: Obj[]; onDone: () => void; link: (urn: string, text: string) => ReactNode}) {
  const m = useMutation(onDone)
  return (
    <div>
      <h3>Glossary terms</h3>
      <p>
        {terms.map((t) => (
          <Chip key={t.term.urn} name={`term ${t.term.name}`} onRemove={() => void m.run('mutation r($input: TermAssociationInput!) { removeTerm(input: $input) }', {input: {termUrn: t.term.urn, resourceUrn: urn}})}>
            {link(t.term.urn, t.term.name)}
          </Chip>
        ))}
        {terms.length === 0 && <span className="meta">No terms.</span>}
      </p>
      <AddForm id="add-term" label="Add term" placeholder="Classification.Sensitive" onAdd={(v) => m.run('mutation add($input: AddTermsInput!) { addTerms(input: $input) }', {input: {termUrns: [asUrn(v, 'glossaryTerm')], resourceUrn: urn}})} />
      <Alert text={m.error} />
    </div>
  )
}

/** Whether an owner is a user or a group, as a person reads it. */
export const ownerKind = (ownerUrn: string): 'user' | 'group' => (ownerUrn.startsWith('urn:li:corpGroup:') ? 'group' : 'user')

export function OwnersEditor({urn, owners, onDone}: {urn: string; owners: Obj[]; onDone: () => void}) {
  const m = useMutation(onDone)
  const add = (v: string) => {
    const ownerUrn = v.trim().startsWith('urn:li:') ? v.trim() : `urn:li:corpuser:${v.trim()}`
    const ownerEntityType = ownerUrn.startsWith('urn:li:corpGroup:') ? 'CORP_GROUP' : 'CORP_USER'
    return m.run('mutation add($input: AddOwnerInput!) { addOwner(input: $input) }', {input: {ownerUrn, ownerEntityType, type: 'TECHNICAL_OWNER', resourceUrn: urn}})
  }
  return (
    <div>
      <h3>Owners</h3>
      <p>
        {/* One chip per person: an owner may hold several roles (DATAOWNER and TECHNICAL_OWNER), and removing removes them all. */}
        {owners.filter((o, i) => owners.findIndex((x) => x.owner.urn === o.owner.urn) === i).map((o) => {
          const name = o.owner.username ?? o.owner.name ?? o.owner.urn
          // A user and a group may have the same name: each chip says which it is.
          const kind = ownerKind(o.owner.urn)
          return (
            <Chip key={o.owner.urn} name={`owner ${name} (${kind})`} onRemove={() => void m.run('mutation r($input: RemoveOwnerInput!) { removeOwner(input: $input) }', {input: {ownerUrn: o.owner.urn, resourceUrn: urn}})}>
              <span className="kind">{kind}</span> {name}
            </Chip>
          )
        })}
        {owners.length === 0 && <span className="meta">No owners.</span>}
      </p>
      <AddForm id="add-owner" label="Add owner" placeholder="jdoe or urn:li:corpGroup:analytics" onAdd={add} />
      <Alert text={m.error} />
    </div>
  )
}

export function DomainEditor({urn, domain, onDone, link}: {urn: string; domain?: Obj; onDone: () => void; link: (urn: string, text: string) => ReactNode}) {
  const m = useMutation(onDone)
  return (
    <div>
      <h3>Domain</h3>
      <p>
        {domain ? (
          <Chip name={`domain ${domain.properties?.name ?? domain.urn}`} onRemove={() => void m.run('mutation u($u: String!) { unsetDomain(entityUrn: $u) }', {u: urn})}>
            {link(domain.urn, domain.properties?.name ?? domain.urn)}
          </Chip>
        ) : (
          <span className="meta">No domain.</span>
        )}
      </p>
      <AddForm id="set-domain" label="Set domain" placeholder="marketing" onAdd={(v) => m.run('mutation s($u: String!, $d: String!) { setDomain(entityUrn: $u, domainUrn: $d) }', {u: urn, d: asUrn(v, 'domain')})} />
      <Alert text={m.error} />
    </div>
  )
}

export function DeprecationEditor({urn, deprecation, onDone}: {urn: string; deprecation?: Obj; onDone: () => void}) {
  const m = useMutation(onDone)
  const [note, setNote] = useState('')
  const set = (deprecated: boolean) => m.run('mutation d($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }', {input: {urn, deprecated, note: deprecated ? note : ''}})
  return (
    <div>
      <h3>Deprecation</h3>
      {deprecation?.deprecated ? (
        <button onClick={() => void set(false)}>Mark as not deprecated</button>
      ) : (
        <form
          className="inline"
          aria-label="Deprecate"
          onSubmit={(ev) => {
            ev.preventDefault()
            void set(true)
          }}
        >
          <label htmlFor="deprecation-note">Deprecation note</label>
          <input id="deprecation-note" value={note} onChange={(e) => setNote(e.target.value)} placeholder="Use orders_v2 instead" />
          <button type="submit">Mark as deprecated</button>
        </form>
      )}
      <Alert text={m.error} />
    </div>
  )
}

/** A column's description and tags, edited in place from the schema table. */
export function ColumnEditor({urn, field, description, tags, onDone}: {urn: string; field: string; description: string; tags: Obj[]; onDone: () => void}) {
  const [open, setOpen] = useState(false)
  const [text, setText] = useState(description)
  const [tag, setTag] = useState('')
  const m = useMutation(onDone)
  const sub = {resourceUrn: urn, subResourceType: 'DATASET_FIELD', subResource: field}
  if (!open)
    return (
      <button className="link" aria-label={`Edit column ${field}`} onClick={() => setOpen(true)}>
        Edit
      </button>
    )
  const save = async (ev: FormEvent) => {
    ev.preventDefault()
    // Both edits, then one reload: the page re-reads the entity once.
    let ok = true
    if (text !== description) ok = await m.run('mutation d($input: DescriptionUpdateInput!) { updateDescription(input: $input) }', {input: {description: text, ...sub}}, false)
    if (ok && tag.trim()) ok = await m.run('mutation t($input: TagAssociationInput!) { addTag(input: $input) }', {input: {tagUrn: asUrn(tag, 'tag'), ...sub}}, false)
    if (ok) {
      setOpen(false)
      onDone()
    }
  }
  return (
    <form onSubmit={save} aria-label={`Edit column ${field}`} className="column-edit">
      <label>
        Description of {field}
        <textarea value={text} onChange={(e) => setText(e.target.value)} rows={2} />
      </label>
      <label>
        Add a tag to {field}
        <input value={tag} onChange={(e) => setTag(e.target.value)} placeholder="pii" />
      </label>
      {tags.length > 0 && (
        <p>
          {tags.map((t) => (
            <Chip key={t.tag.urn} name={`tag ${t.tag.name} from ${field}`} onRemove={() => void m.run('mutation r($input: TagAssociationInput!) { removeTag(input: $input) }', {input: {tagUrn: t.tag.urn, ...sub}})}>
              {t.tag.name}
            </Chip>
          ))}
        </p>
      )}
      <button type="submit">Save</button>{' '}
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <Alert text={m.error} />
    </form>
  )
}
