/**
 * A list call: `for await (const item of list)` walks every item across pages, fetching the next
 * page only when the loop gets there; `pages()` walks the raw pages (with their pagination).
 */
export class Paginator<Item, Page> implements AsyncIterable<Item> {
  private readonly fetchPage: (next: Record<string, unknown>) => Promise<Page>;
  private readonly itemsOf: (page: Page) => Item[];
  private readonly nextOf: (page: Page, items: Item[]) => Record<string, unknown> | null;

  constructor(
    fetchPage: (next: Record<string, unknown>) => Promise<Page>,
    itemsOf: (page: Page) => Item[],
    nextOf: (page: Page, items: Item[]) => Record<string, unknown> | null,
  ) {
    this.fetchPage = fetchPage;
    this.itemsOf = itemsOf;
    this.nextOf = nextOf;
  }

  async *pages(): AsyncGenerator<Page, void, undefined> {
    let next: Record<string, unknown> | null = {};
    while (next) {
      const page: Page = await this.fetchPage(next);
      yield page;
      next = this.nextOf(page, this.itemsOf(page));
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  /** Every item, or the first `max`. */
  async toArray(max = Infinity): Promise<Item[]> {
    const out: Item[] = [];
    if (max <= 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }
}

/** Cursor pages (bookings): `pagination.next_cursor` until `has_more` is false. */
export function cursorNext(page: { pagination: { next_cursor: string | null; has_more: boolean } }): Record<string, unknown> | null {
  return page.pagination.has_more && page.pagination.next_cursor ? { cursor: page.pagination.next_cursor } : null;
}

/** Offset pages (members, deliveries: `has_more`; calendars: `hasMore`). */
export function offsetNext(
  page: { pagination: { offset: number; has_more?: boolean; hasMore?: boolean } },
  items: unknown[],
): Record<string, unknown> | null {
  const more = page.pagination.has_more ?? page.pagination.hasMore ?? false;
  return more && items.length > 0 ? { offset: page.pagination.offset + items.length } : null;
}
