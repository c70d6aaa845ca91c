// Rendered report pages kept as bytes, least recently used first out, within a byte budget. A key names everything
// a page depends on, the organization's store generation included (its transaction count: rows are only ever
// added, so an unchanged count means unchanged rows), so an entry can never be served after the data changed. A
// page is kept from its second rendering on (see `offer`): a reconciliation program that fetches pages again, or
// clients asking for the same page at once or over and over, get it without its being read and rendered each time,
// while a walk through a window, which asks for each page once, does not push them out.

export interface CachedPage {
  contentType: string
  body: Buffer
}

/** Keys remembered of pages rendered once and not kept. */
const SEEN = 4096

export class PageCache {
  readonly #pages = new Map<string, CachedPage>()
  readonly #pending = new Map<string, Promise<CachedPage>>()
  /**
   * Keys of pages rendered once, oldest first. A page is kept the second time it is rendered, not the first: a
   * program walking a window asks for each page once, and keeping every one of its 2.4 MB pages only churned the
   * budget (and, held past young collections, made full ones more frequent) for pages nobody asked for again.
   */
  readonly #seen = new Set<string>()
  #bytes = 0

  constructor(readonly maxBytes = 64 * 2 ** 20) {}

  /**
   * Keeps a rendered page if it was rendered before (see #seen); otherwise remembers that it was. `page` is called
   * only to be kept, so that a page streamed in pieces is put together only then.
   */
  offer(key: string, page: () => CachedPage): void {
    if (this.#seen.delete(key)) return this.set(key, page())
    this.#seen.add(key)
    if (this.#seen.size > SEEN) this.#seen.delete(this.#seen.values().next().value!)
  }

  get(key: string): CachedPage | undefined {
    const page = this.#pages.get(key)
    if (page) {
      this.#pages.delete(key)
      this.#pages.set(key, page)
    }
    return page
  }

  set(key: string, page: CachedPage): void {
    // A page larger than a quarter of the budget would push out too much to be worth keeping.
    if (page.body.length > this.maxBytes / 4) return
    this.delete(key)
    this.#pages.set(key, page)
    this.#bytes += page.body.length
    for (const [oldest, old] of this.#pages) {
      if (this.#bytes <= this.maxBytes) break
      this.#pages.delete(oldest)
      this.#bytes -= old.body.length
    }
  }

  /**
   * The cached page, or the one `render` makes (offered to the cache): requests for a page being rendered wait for
   * that rendering rather than each doing it again.
   */
  async getOrRender(key: string, render: () => Promise<CachedPage>): Promise<CachedPage> {
    const cached = this.get(key)
    if (cached) return cached
    let pending = this.#pending.get(key)
    if (!pending) {
      pending = render()
        .then((page) => (this.offer(key, () => page), page))
        .finally(() => this.#pending.delete(key))
      this.#pending.set(key, pending)
    }
    return pending
  }

  get size(): { pages: number; bytes: number } {
    return { pages: this.#pages.size, bytes: this.#bytes }
  }

  private delete(key: string): void {
    const old = this.#pages.get(key)
    if (old) {
      this.#pages.delete(key)
      this.#bytes -= old.body.length
    }
  }
}
