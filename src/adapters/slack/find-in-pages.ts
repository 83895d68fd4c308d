// Looks for one message in a channel's history or a thread's replies, a page at a time, newest
// first, within a bounded window (five pages): what a lost answer or a failover may have hidden is
// recent. Counted in pages, not by time, so a clock that differs from Slack's hides nothing.

const PAGES = 5;

interface Page<M> {
  messages?: M[];
  response_metadata?: { next_cursor?: string };
}

/** The first `match` of a message, or undefined once the window is read. */
export async function findInPages<M, T>(
  page: (cursor: string | undefined) => Promise<Page<M>>,
  match: (message: M) => T | undefined,
): Promise<T | undefined> {
  let cursor: string | undefined;
  for (let n = 0; n < PAGES; n++) {
    const result = await page(cursor);
    for (const message of result.messages ?? []) {
      const found = match(message);
      if (found !== undefined) return found;
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor) return undefined;
  }
  return undefined;
}
