// The tables the bot can name: BOT_CONFIG's, plus the catalog's when it answers (cached, so an
// alert storm does not list the catalog once per alert).

import type { BotConfig } from "../../core/settings.js";
import { formatTableName } from "../../core/table-name.js";
import { mapLimit } from "../../util/map-limit.js";
import type { CatalogPort } from "../ports.js";

export interface KnownTablesOptions {
  bot: BotConfig;
  /**
   * Tables BOT_CONFIG places in a named catalog (`sources.catalogs[].tables`): known like
   * configured ones, so `lake-eu.sales.orders` and `iceberg.sales.orders` are both sales.orders.
   */
  mapped?: readonly string[];
  catalog?: CatalogPort;
  now: () => number;
  ttlMs?: number;
  /** Namespaces listed at most, to bound the work on a large catalog. */
  maxNamespaces?: number;
}

export function createKnownTables(options: KnownTablesOptions): () => Promise<string[]> {
  const ttl = options.ttlMs ?? 60_000;
  let cached: { at: number; tables: string[] } | undefined;
  let pending: Promise<string[]> | undefined;
  const configured = [...Object.keys(options.bot.tables), ...(options.mapped ?? [])];
  const listCatalog = async (): Promise<string[]> => {
    const catalog = options.catalog;
    if (!catalog) return [];
    const namespaces = (await catalog.listNamespaces()).slice(0, options.maxNamespaces ?? 200);
    // A few at a time: a catalog of thousands of namespaces is not asked for them all at once.
    const lists = await mapLimit(namespaces, 8, (ns) => catalog.listTables(ns).catch(() => []));
    return lists.flat().map(formatTableName);
  };
  return async () => {
    const now = options.now();
    if (cached && now - cached.at < ttl) return cached.tables;
    pending ??= listCatalog()
      .catch(() => [] as string[])
      .then((fromCatalog) => {
        cached = { at: options.now(), tables: [...new Set([...configured, ...fromCatalog])] };
        return cached.tables;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
