// What the operators' pages share: their own navigation, the organization choices of their forms, a refused form's
// one-line message, and the page that shows a new secret once.
import type { Organization } from '../../organizations/service.js'
import { DomainError } from '../../platform/errors.js'
import { html, type Html } from '../layout.js'

const SECTIONS: [string, string][] = [
  ['/console/operators', 'Organizations'],
  ['/console/operators/users', 'Merchant users'],
  ['/console/operators/keys', 'Reporting keys'],
  ['/console/operators/clients', 'OAuth clients'],
]

/** The operators' sections, the current one marked. */
export function operatorNav(current: string): Html {
  return html`<nav aria-label="Operators" class="card"><ul>${SECTIONS.map(
    ([href, label]) => html`<li><a href="${href}"${href === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>`
}

/** The organizations in tree order (each after its parent, children by id), each with its depth. */
export function treeOrder(organizations: readonly Organization[]): { org: Organization; depth: number }[] {
  const children = new Map<string | null, Organization[]>()
  const ids = new Set(organizations.map((o) => o.id))
  for (const o of organizations) {
    // An organization whose parent is not listed still shows, at the top.
    const parent = o.parentId !== null && ids.has(o.parentId) ? o.parentId : null
    children.set(parent, [...(children.get(parent) ?? []), o])
  }
  const out: { org: Organization; depth: number }[] = []
  const walk = (parent: string | null, depth: number) => {
    for (const org of (children.get(parent) ?? []).sort((a, b) => a.id.localeCompare(b.id))) {
      out.push({ org, depth })
      if (depth < 16) walk(org.id, depth + 1)
    }
  }
  walk(null, 0)
  return out
}

/** `<option>`s of every organization, in tree order; `blank` first when given (its label, value ''). */
export function organizationOptions(organizations: readonly Organization[], selected: string, blank?: string): Html[] {
  return [
    ...(blank === undefined ? [] : [html`<option value=""${selected === '' ? html` selected` : ''}>${blank}</option>`]),
    ...treeOrder(organizations).map(({ org }) => html`<option value="${org.id}"${org.id === selected ? html` selected` : ''}>${org.id} (${org.type})</option>`),
  ]
}

/** A refused form's message: one line naming the fix. */
export const refusal = (message: string | undefined): Html | string => (message ? html`<p class="error" role="alert" id="form-error">${message}</p>` : '')

/** A service's refusal of a form (invalid or conflict) as one line; anything else is rethrown. */
export function refusedBecause(err: unknown): string {
  if (!(err instanceof DomainError) || (err.kind !== 'invalid' && err.kind !== 'conflict')) throw err
  const reasons = err.details.map((d) => (d.field ? `${d.field}: ${d.reason}` : d.reason))
  return reasons.length ? `That could not be saved: ${reasons.join('; ')}.` : 'That could not be saved. Check the values and try again.'
}

/** A secret made just now: shown on the page answering the form, this once. */
export function shownOnce(items: [string, string][], back: string): Html {
  return html`<p class="notice" role="status"><strong>Copy it now: it is not shown again.</strong> Only a hash or a sealed copy is kept.</p>
<dl>${items.map(([term, value]) => html`<dt>${term}</dt><dd><code>${value}</code></dd>`)}</dl>
<p><a href="${back}">Back to the list</a></p>`
}
