// Every table of the catalog, namespace by namespace (nested ones included), one listing page at
// a time. The listing is bounded whatever the catalog answers: a namespace is listed once (a seen
// set), a child must lie under the parent it was listed for, a listing stops after
// pagesPerListing pages or at a token it has seen, and the meter's budgets end the listing. What
// was left out is counted by reason, for the report.

import type { TableRef } from "../../core/evidence/model.js";
import { type BudgetLimits, DEFAULT_BUDGET, liesUnder, type SkipReason } from "../../core/sweep/budget.js";
import { ErrorCode, isCodedError } from "../../errors.js";
import type { CatalogPort, ListPage } from "../ports.js";
import type { CatalogMeter } from "./catalog-budget.js";

export interface ListingOptions {
  /** Only this namespace and the ones below it (levels, e.g. ["analytics", "web"]). */
  under?: string[];
  limits?: BudgetLimits;
  /** Counts namespaces and tables against the budget (requests are counted by the metered port). */
  meter?: CatalogMeter;
  /** What was skipped, by reason; filled in as the walk goes. */
  skipped?: Partial<Record<SkipReason, number>>;
}

export async function* listCatalog(
  catalog: CatalogPort,
  options: ListingOptions = {},
): AsyncGenerator<TableRef> {
  const limits = options.limits ?? DEFAULT_BUDGET;
  const skipped = options.skipped ?? {};
  const skip = (reason: SkipReason, n = 1) => {
    skipped[reason] = (skipped[reason] ?? 0) + n;
  };
  const seen = new Set<string>();
  const key = (ns: readonly string[]) => ns.join("\u001f");

  const pages = async function* <T>(page: (token: string | undefined) => Promise<ListPage<T>>) {
    const tokens = new Set<string>();
    let token: string | undefined;
    for (let n = 0; ; n++) {
      if (n >= limits.pagesPerListing) {
        skip("pages");
        return;
      }
      const current = await page(token);
      yield current.items;
      if (!current.nextPageToken) return;
      if (tokens.has(current.nextPageToken)) {
        skip("pages");
        return;
      }
      tokens.add(current.nextPageToken);
      token = current.nextPageToken;
    }
  };

  const stack: string[][] = [];
  const offer = (parent: readonly string[] | undefined, children: readonly string[][]) => {
    // Depth first with an explicit stack: nesting depth never grows the call stack.
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]!;
      if (!liesUnder(parent, child)) skip("outside-parent");
      else if (seen.has(key(child))) skip("seen-before");
      else {
        seen.add(key(child));
        stack.push(child);
      }
    }
  };

  try {
    if (options.under && options.under.length > 0) offer(undefined, [options.under]);
    else {
      const roots: string[][] = [];
      for await (const items of pages((t) => catalog.listNamespacesPage(undefined, t))) roots.push(...items);
      offer(undefined, roots);
    }
    while (stack.length > 0) {
      const namespace = stack.pop()!;
      options.meter?.take("namespaces");
      for await (const items of pages((t) => catalog.listTablesPage(namespace, t))) {
        for (const table of items) {
          options.meter?.take("tables");
          yield table;
        }
      }
      const children: string[][] = [];
      for await (const items of pages((t) => catalog.listNamespacesPage(namespace, t)))
        children.push(...items);
      offer(namespace, children);
    }
  } catch (error) {
    if (!isCodedError(error, ErrorCode.BudgetExhausted)) throw error;
    const limit = (error.details?.limit ?? "requests") as SkipReason;
    // The namespaces never walked, the one in hand included.
    skip(limit, stack.length + 1);
  }
}
