// Namespace and table listings with `next-page-token` pagination. iceberg-js 0.8.1 sends one
// request and keeps the first page only, so listings go through our own fetch: an empty
// `pageToken` asks a paginating catalog for pages (the REST spec's way to start), each answer's
// `next-page-token` is sent back until it is null or absent, and a catalog that does not paginate
// answers everything at once.

import type { z } from "zod";
import type { TableRef } from "../../../core/evidence/model.js";
import { CodedError, ErrorCode } from "../../../errors.js";
import type { ListPage } from "../../../services/ports.js";
import { buildUrl, parseBody } from "../http.js";
import { httpStatusError } from "../http-errors.js";
import { ListNamespacesSchema, ListTablesSchema } from "../iceberg-schemas.js";
import type { CatalogSend } from "./fetch.js";

/** The REST spec's default namespace separator, url-encoded as %1F. */
const SEPARATOR = "\u001f";
/** A catalog that keeps answering with new tokens past this is broken, not large. */
const MAX_PAGES = 100_000;

export interface PageTarget {
  baseUrl: string;
  prefix?: string;
  send: CatalogSend;
}

function prefixed(target: PageTarget, path: string): string {
  return target.prefix ? `v1/${encodeURIComponent(target.prefix)}/${path}` : `v1/${path}`;
}

/** One GET of the catalog: its JSON body checked with the schema, or the coded error its HTTP status calls for. */
export async function getCatalogJson<S extends z.ZodType>(
  send: CatalogSend,
  url: URL,
  schema: S,
): Promise<z.output<S>> {
  const response = await send({ method: "GET", url, headers: { accept: "application/json" } });
  if (response.status < 200 || response.status > 299) throw httpStatusError("catalog", response);
  return parseBody(schema, response.body, "catalog", `GET ${url.pathname}`);
}

export async function namespacesPage(
  target: PageTarget,
  parent: readonly string[] | undefined,
  pageToken = "",
): Promise<ListPage<string[]>> {
  const query = { parent: parent && parent.length > 0 ? parent.join(SEPARATOR) : undefined, pageToken };
  const url = buildUrl(target.baseUrl, prefixed(target, "namespaces"), query);
  const parsed = await getCatalogJson(target.send, url, ListNamespacesSchema);
  return { items: parsed.namespaces, nextPageToken: parsed["next-page-token"] ?? undefined };
}

export async function tablesPage(
  target: PageTarget,
  namespace: readonly string[],
  pageToken = "",
): Promise<ListPage<TableRef>> {
  const path = `namespaces/${encodeURIComponent(namespace.join(SEPARATOR))}/tables`;
  const url = buildUrl(target.baseUrl, prefixed(target, path), { pageToken });
  const parsed = await getCatalogJson(target.send, url, ListTablesSchema);
  // The schema keeps only namespace and name: each identifier is a TableRef as it is.
  return { items: parsed.identifiers, nextPageToken: parsed["next-page-token"] ?? undefined };
}

/** Follows `next-page-token` until the last page; refuses a token that comes back twice. */
export async function allPages<T>(
  what: string,
  page: (token: string | undefined) => Promise<ListPage<T>>,
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let token: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const current = await page(token);
    out.push(...current.items);
    if (!current.nextPageToken) return out;
    if (seen.has(current.nextPageToken)) break;
    seen.add(current.nextPageToken);
    token = current.nextPageToken;
  }
  throw new CodedError(
    ErrorCode.SourceMalformed,
    `The Iceberg catalog kept sending next-page-token values to ${what}`,
    {
      hint: "The catalog's pagination repeats itself; look at its logs or list without paging.",
      details: { source: "catalog", operation: what },
    },
  );
}
