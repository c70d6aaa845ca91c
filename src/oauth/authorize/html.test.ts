import { describe, expect, it } from 'vitest'
import { escapeHtml, html, raw } from './html.js'

describe('html', () => {
  it('escapes every interpolated string, for content and attributes', () => {
    const name = `<script>alert("x")</script> & 'co'`
    expect(html`<p title="${name}">${name}</p>`.toString()).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</p>',
    )
  })

  it('does not escape nested html twice, and joins arrays', () => {
    const items = ['a<b', 'c&d'].map((s) => html`<li>${s}</li>`)
    expect(html`<ul>${items}</ul>`.toString()).toBe('<ul><li>a&lt;b</li><li>c&amp;d</li></ul>')
  })

  it('leaves out null, undefined and false; prints numbers and true', () => {
    expect(html`${null}${undefined}${false}|${0}|${true}`.toString()).toBe('|0|true')
  })

  it('passes raw markup through untouched', () => {
    expect(html`<div>${raw('<br>')}</div>`.toString()).toBe('<div><br></div>')
  })

  it('escapeHtml leaves plain text alone', () => {
    expect(escapeHtml('Sandbox application 1')).toBe('Sandbox application 1')
  })
})
