import { describe, expect, it } from 'vitest'
import { PageCache } from './page-cache.js'

const page = (n: number) => ({ contentType: 'text/plain', body: Buffer.alloc(n) })

describe('PageCache', () => {
  it('keeps pages within its byte budget, least recently used out first', () => {
    const cache = new PageCache(100)
    cache.set('a', page(20))
    cache.set('b', page(20))
    cache.set('c', page(20))
    cache.get('a')
    cache.set('d', page(20))
    cache.set('e', page(25))
    expect(cache.size).toEqual({ pages: 4, bytes: 85 })
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')).toBeDefined()
    cache.set('huge', page(26))
    expect(cache.get('huge')).toBeUndefined()
  })

  it('renders a page once for requests that come while it is being rendered', async () => {
    const cache = new PageCache()
    let renders = 0
    const render = async () => {
      renders++
      await new Promise((r) => setImmediate(r))
      return page(3)
    }
    const pages = await Promise.all([cache.getOrRender('k', render), cache.getOrRender('k', render), cache.getOrRender('k', render)])
    expect(renders).toBe(1)
    expect(new Set(pages).size).toBe(1)
    // Rendered once: not kept until it is asked for again, then kept.
    await cache.getOrRender('k', render)
    expect(renders).toBe(2)
    await cache.getOrRender('k', render)
    expect(renders).toBe(2)
  })

  it('keeps a page the second time it is offered, not the first, and remembers only so many keys', () => {
    const cache = new PageCache(100)
    cache.offer('a', () => page(10))
    expect(cache.get('a')).toBeUndefined()
    expect(cache.size).toEqual({ pages: 0, bytes: 0 })
    cache.offer('a', () => page(10))
    expect(cache.get('a')?.body.length).toBe(10)
    // A page offered once is not even put together.
    cache.offer('b', () => {
      throw new Error('built for nothing')
    })
    // The first of 4,097 keys offered once is forgotten: offered again, it counts as a first time.
    for (let i = 0; i < 4096; i++) cache.offer(`k${i}`, () => page(1))
    cache.offer('b', () => page(5))
    expect(cache.get('b')).toBeUndefined()
    cache.offer('k4095', () => page(1))
    expect(cache.get('k4095')).toBeDefined()
  })

  it('keeps no failed rendering', async () => {
    const cache = new PageCache()
    await expect(cache.getOrRender('k', () => Promise.reject(new Error('no')))).rejects.toThrow('no')
    expect((await cache.getOrRender('k', async () => page(1))).body.length).toBe(1)
  })
})
