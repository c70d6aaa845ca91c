// A tiny HTML template helper: every interpolated value is escaped unless it is already Html (built by `html`
// itself), so a client name, a username or a state can never become markup on the consent page.

/** Markup that is safe as it is: produced by `html`, or by `raw` for trusted constants. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for element content and for quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes `name`; arrays are joined; null, undefined and false vanish. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!
  })
  return new Html(out)
}

/** Trusted markup, for constants only; never for anything that came from a request or the database. */
export function raw(markup: string): Html {
  return new Html(markup)
}
