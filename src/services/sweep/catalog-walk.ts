// Every table of the catalog, namespace by namespace (nested ones included), each listing
// followed through all its pages by the catalog port.

import type { TableRef } from "../../core/evidence/model.js";
import type { CatalogPort } from "../ports.js";

export interface WalkOptions {
  /** Only this namespace and the ones below it (levels, e.g. ["analytics", "web"]). */
  under?: string[];
}

export async function* walkCatalog(
  catalog: CatalogPort,
  options: WalkOptions = {},
): AsyncGenerator<TableRef> {
  const start = options.under && options.under.length > 0 ? [options.under] : await catalog.listNamespaces();
  // Depth first with an explicit stack: nesting depth never grows the call stack.
  const stack = [...start].reverse();
  while (stack.length > 0) {
    const namespace = stack.pop()!;
    for (const table of await catalog.listTables(namespace)) yield table;
    const children = await catalog.listNamespaces(namespace);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}
