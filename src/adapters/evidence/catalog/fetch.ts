// How the catalog is called: every request goes through our undici request layer (timeout, size
// cap, coded transport errors), carries the current token, retries once with a fresh token after
// a 401/419, and has its 64-bit snapshot ids quoted; iceberg-js is given a fetch over it.

import { recordMetadataLocation } from "../call-scope.js";
import { type HttpMethod, type HttpResponse, type HttpSourceOptions, sendRaw } from "../http.js";
import { protectSnapshotIds, quoteSnapshotIdBytes } from "../snapshot-ids.js";
import type { TokenProvider } from "./auth.js";
import type { SignableRequest } from "./sigv4.js";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** One catalog request, carrying the current token; sent again with a fresh one after a 401/419. */
export type CatalogSend = (req: SignableRequest & { method: HttpMethod }) => Promise<HttpResponse>;

export function createCatalogSend(http: HttpSourceOptions, tokens: TokenProvider): CatalogSend {
  return async (req) => {
    const attempt = async () =>
      sendRaw(http, {
        ...req,
        headers: { ...req.headers, ...(await tokens.headers(req)) },
        rewrite: quoteSnapshotIdBytes,
      });
    const response = await attempt();
    if ((response.status === 401 || response.status === 419) && tokens.invalidate()) return attempt();
    return response;
  };
}

export function createCatalogFetch(send: CatalogSend): FetchLike {
  return async (input, init) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const method = (init?.method ?? "GET").toUpperCase() as HttpMethod;
    const headers = { accept: "application/json", ...headerRecord(init?.headers) };
    const body = typeof init?.body === "string" ? init.body : undefined;
    return toFetchResponse(await send({ method, url, headers, body }));
  };
}

function toFetchResponse(response: HttpResponse): Response {
  const noBody = response.status === 204 || response.status === 205 || response.status === 304;
  if (noBody || response.method === "HEAD") {
    return new Response(null, { status: response.status, headers: new Headers(response.headers) });
  }

  if (response.status >= 200 && response.status < 300) {
    const text = response.body;
    keepMetadataLocation(text);
    const headers = new AnswerHeaders({ ...response.headers, "content-type": "application/json" });
    return textResponse(response.status, headers, response.rewritten ? text : protectSnapshotIds(text));
  }
  const headers = new Headers(response.headers);
  // iceberg-js parses error bodies labelled JSON; an HTML error page must not reach JSON.parse.
  if (!isJson(response.body)) headers.set("content-type", "text/plain");
  return new Response(response.body, { status: response.status, headers });
}

/**
 * A successful answer's headers, read-only. Node's Headers and Response load its whole fetch layer
 * on first use, tens of milliseconds of a cold `diagnose`, for one `get("content-type")`.
 */
class AnswerHeaders {
  readonly #headers: Map<string, string>;
  constructor(headers: Record<string, string>) {
    this.#headers = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  }
  get(name: string): string | null {
    return this.#headers.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#headers.has(name.toLowerCase());
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this.#headers) callback(value, name);
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#headers.entries();
  }
}

/**
 * iceberg-js only calls ok, status, headers.get and text() on what fetch returns. Handing it the
 * text we already hold, instead of a real Response, saves re-encoding and re-decoding bodies that
 * reach ~100 MiB on tables with long histories (JSON.parse stays the only full pass over them).
 */
function textResponse(status: number, headers: AnswerHeaders, text: string): Response {
  const response = {
    ok: true,
    status,
    headers,
    text: async () => text,
    json: async () => JSON.parse(text) as unknown,
  };
  return response as unknown as Response;
}

const METADATA_LOCATION = /^\s*\{\s*"metadata-location"\s*:\s*("(?:[^"\\]|\\.)*")\s*,/;

/**
 * iceberg-js returns only `metadata` of a LoadTableResult, so the file location is kept aside
 * for the call (catalogs write metadata-location first). Read from the start of the text, never
 * by splicing it into a body that may be 100 MiB: that would copy the body before its parse.
 */
function keepMetadataLocation(text: string): void {
  const location = METADATA_LOCATION.exec(text);
  if (location?.[1]) recordMetadataLocation(JSON.parse(location[1]) as string);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** iceberg-js passes a plain object; pairs and Headers are read too, names lower-cased as fetch does. */
function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined) return out;
  const add = (value: string, name: string) => {
    const key = name.toLowerCase();
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  };
  if (Array.isArray(headers)) for (const [name, value] of headers) add(value ?? "", name ?? "");
  else if (typeof (headers as Headers).forEach === "function") (headers as Headers).forEach(add);
  else for (const [name, value] of Object.entries(headers)) add(value, name);
  return out;
}
