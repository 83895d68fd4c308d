// Turning what a person or an alert typed into a table the catalog knows: `db.events`,
// `catalog.db.events` (catalog name dropped), nested `a.b.events`, or the Flink metric form
// `iceberg_db_events` / `db_events`, matched against every table the catalog lists.

import type { TableEvidence, TableRef } from "../../core/evidence/model.js";
import { formatTableName, parseTableName, sanitizeForMetric } from "../../core/table-name.js";
import { CodedError, ErrorCode, isCodedError, unless404 } from "../../errors.js";
import { mapLimit } from "../../util/map-limit.js";
import type { CatalogPort } from "../ports.js";

const METRIC_FORM = /^[A-Za-z0-9_-]{1,255}$/;
/**
 * Bounds on the catalog walk a name it does not know sets off: deep or huge catalogs are cut
 * rather than walked for minutes. At most 1 + 2 × MAX_NAMESPACES requests (the root listing, then
 * each namespace's children and tables), WALK_CONCURRENCY at a time.
 */
const MAX_NAMESPACES = 100;
const MAX_DEPTH = 4;
const WALK_CONCURRENCY = 8;
/**
 * How long one walk answers for every name looked up in the same catalog: an alert storm of
 * unknown tables (up to the incident cap, 60 a minute) walks the catalog once, not once each.
 */
export const WALK_CACHE_MS = 60_000;

/** The last walk of each catalog (the port object the process holds), shared while it is fresh. */
const walks = new WeakMap<CatalogPort, { atMs: number; walk: Promise<CatalogListing> }>();

/** Validates a name without dots (the metric form); hostile input is refused like parseTableName does. */
function parseMetricForm(input: string): string {
  const trimmed = input.trim();
  if (!METRIC_FORM.test(trimmed)) {
    // parseTableName words the problem (control characters, quotes, length) consistently.
    parseTableName(trimmed.includes(".") ? trimmed : `x.${trimmed}`);
    throw new CodedError(ErrorCode.TableNameInvalid, "Table name is not valid.", {
      hint: "Use namespace.table, for example db.events.",
      details: { length: input.length },
    });
  }
  return trimmed;
}

/** The TableRef to use when no catalog can be asked: the name as typed. */
export function tableRefWithoutCatalog(input: string): TableRef {
  const trimmed = input.trim();
  if (trimmed.includes(".")) return parseTableName(trimmed);
  return { namespace: [], name: parseMetricForm(trimmed) };
}

/** `now` (the caller's clock) lets the walk of the catalog be shared for WALK_CACHE_MS; without it each call walks. */
export async function resolveTable(
  catalog: CatalogPort,
  input: string,
  now?: () => number,
): Promise<TableRef> {
  const trimmed = input.trim();
  const dotted = trimmed.includes(".") ? parseTableName(trimmed) : undefined;
  const metricForm = dotted ? sanitizeForMetric(formatTableName(dotted)) : parseMetricForm(trimmed);

  if (dotted) {
    if (await tableExists(catalog, dotted)) return dotted;
    // "iceberg.db.events": the first segment may be the catalog's name rather than a namespace.
    if (dotted.namespace.length >= 2) {
      const withoutCatalog = { namespace: dotted.namespace.slice(1), name: dotted.name };
      if (await tableExists(catalog, withoutCatalog)) return withoutCatalog;
    }
  }

  const walk = await cachedListing(catalog, now);
  const matches = walk.tables.filter((ref) => {
    const candidate = sanitizeForMetric(formatTableName(ref));
    return candidate === metricForm || metricForm.endsWith(`_${candidate}`);
  });
  const exact = matches.filter((ref) => sanitizeForMetric(formatTableName(ref)) === metricForm);
  const chosen = exact.length > 0 ? exact : matches;
  if (chosen.length === 1 && chosen[0]) return chosen[0];
  if (chosen.length > 1) {
    const names = chosen.map(formatTableName).sort();
    throw new CodedError(
      ErrorCode.TableAmbiguous,
      `"${trimmed}" matches several tables: ${names.join(", ")}`,
      {
        hint: `Name the table with its namespace, for example ${names[0]}.`,
        details: { candidates: names },
      },
    );
  }
  throw notFound(catalog, trimmed, walk, suggest(trimmed, walk.tables));
}

/**
 * Resolves the name and loads the table. A plain `namespace.table` is loaded straight away (one
 * round trip); listing the catalog is only for the other forms and for names it does not know.
 */
export async function loadResolvedTable(
  catalog: CatalogPort,
  input: string,
  now?: () => number,
): Promise<{ ref: TableRef; evidence: TableEvidence }> {
  const trimmed = input.trim();
  if (trimmed.includes(".")) {
    const dotted = parseTableName(trimmed);
    const evidence = await unless404(catalog.loadTable(dotted), undefined);
    if (evidence) return { ref: dotted, evidence };
  }
  const ref = await resolveTable(catalog, trimmed, now);
  return { ref, evidence: await catalog.loadTable(ref) };
}

/** Up to three known names close to what was typed (case slips, a letter or two off). */
export function suggest(input: string, tables: readonly TableRef[]): string[] {
  const typed = input.toLowerCase();
  const scored = tables
    .map((ref) => {
      const name = formatTableName(ref);
      const lower = name.toLowerCase();
      const metric = sanitizeForMetric(lower);
      const distance = Math.min(editDistance(typed, lower), editDistance(sanitizeForMetric(typed), metric));
      return { name, distance };
    })
    .filter((c) => c.distance <= Math.max(2, Math.floor(typed.length / 5)))
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  return scored.slice(0, 3).map((c) => c.name);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

async function tableExists(catalog: CatalogPort, ref: TableRef): Promise<boolean> {
  const tables = await unless404(catalog.listTables(ref.namespace), []);
  return tables.some((t) => t.name === ref.name);
}

interface CatalogListing {
  tables: TableRef[];
  namespaces: string[][];
  truncated: boolean;
}

/** The catalog's walk, shared with every look-up in the next WALK_CACHE_MS; a failed one is not kept. */
function cachedListing(catalog: CatalogPort, now: (() => number) | undefined): Promise<CatalogListing> {
  if (!now) return listAllTables(catalog);
  const at = now();
  const last = walks.get(catalog);
  if (last && at >= last.atMs && at - last.atMs < WALK_CACHE_MS) return last.walk;
  const walk = listAllTables(catalog);
  walks.set(catalog, { atMs: at, walk });
  walk.catch(() => {
    if (walks.get(catalog)?.walk === walk) walks.delete(catalog);
  });
  return walk;
}

/** Lists namespaces breadth first (nested ones too) and the tables in each. */
async function listAllTables(catalog: CatalogPort): Promise<CatalogListing> {
  const seen = new Map<string, string[]>();
  let level = await catalog.listNamespaces();
  let truncated = false;
  for (let depth = 1; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const fresh = level.filter((ns) => ns.length > 0 && !seen.has(ns.join("\u001f")));
    for (const ns of fresh) {
      if (seen.size >= MAX_NAMESPACES) {
        truncated = true;
        break;
      }
      seen.set(ns.join("\u001f"), ns);
    }
    if (truncated || depth === MAX_DEPTH) break;
    const children = await mapLimit(fresh, WALK_CONCURRENCY, (ns) => childNamespaces(catalog, ns));
    level = children.flat();
  }
  const namespaces = [...seen.values()];
  // A namespace dropped between the two listings is simply empty now.
  const listed = await mapLimit(namespaces, WALK_CONCURRENCY, (ns) => unless404(catalog.listTables(ns), []));
  return { tables: listed.flat(), namespaces, truncated };
}

/** Catalogs without nested namespaces may refuse the parent query; that just means none. */
async function childNamespaces(catalog: CatalogPort, parent: string[]): Promise<string[][]> {
  try {
    const children = await catalog.listNamespaces(parent);
    return children.filter((ns) => ns.length > parent.length);
  } catch (error) {
    if (isCodedError(error, ErrorCode.SourceHttpStatus)) return [];
    throw error;
  }
}

function notFound(
  catalog: CatalogPort,
  input: string,
  walk: CatalogListing,
  suggestions: string[],
): CodedError {
  const { truncated } = walk;
  const names = walk.namespaces.map((ns) => ns.join(".")).sort();
  const shown =
    names.length > 20 ? `${names.slice(0, 20).join(", ")} … and ${names.length - 20} more` : names.join(", ");
  const where = catalog.url ? `the catalog at ${catalog.url}` : "the catalog";
  const searched = names.length > 0 ? `namespaces searched: ${shown}` : "it lists no namespaces";
  const closest = suggestions.length > 0 ? ` Did you mean ${suggestions.join(" or ")}?` : "";
  return new CodedError(
    ErrorCode.TableNotFound,
    `Table "${input}" was not found in ${where} (${searched}${truncated ? ", search cut short" : ""}).${closest}`,
    {
      hint: "Check the spelling and give it as namespace.table (for example db.events); ICEBERG_WAREHOUSE selects the warehouse when the catalog serves several.",
      details: { namespaces: names, truncated, suggestions },
    },
  );
}
