// The fetch that iceberg-js is given: every catalog call goes through our undici request layer
// (timeout, size cap, coded transport errors), carries the current token, retries once with a
// fresh token after a 401/419, and hands over bodies whose 64-bit snapshot ids have been made exact.

import type { TokenProvider } from "./catalog-auth.js";
import { type HttpMethod, type HttpResponse, type HttpSourceOptions, sendRaw } from "./http.js";
import { parseJsonText } from "./parse.js";
import { protectSnapshotIds } from "./snapshot-ids.js";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function createCatalogFetch(http: HttpSourceOptions, tokens: TokenProvider): FetchLike {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const method = (init?.method ?? "GET").toUpperCase() as HttpMethod;
    const headers = { accept: "application/json", ...headerRecord(init?.headers) };
    const body = typeof init?.body === "string" ? init.body : undefined;

    const attempt = async () =>
      sendRaw(http, { method, url, body, headers: { ...headers, ...(await tokens.headers()) } });
    let response = await attempt();
    if ((response.status === 401 || response.status === 419) && tokens.invalidate())
      response = await attempt();
    return toFetchResponse(http, response);
  };
}

function toFetchResponse(http: HttpSourceOptions, response: HttpResponse): Response {
  const headers = new Headers(response.headers);
  const noBody = response.status === 204 || response.status === 205 || response.status === 304;
  if (noBody || response.method === "HEAD") return new Response(null, { status: response.status, headers });

  if (response.status >= 200 && response.status < 300) {
    const ctx = { source: http.source, what: `${response.method} ${response.path}` };
    const data = parseJsonText(protectSnapshotIds(response.body), ctx);
    headers.set("content-type", "application/json");
    return new Response(JSON.stringify(keepMetadataLocation(data)), { status: response.status, headers });
  }
  // iceberg-js parses error bodies labelled JSON; an HTML error page must not reach JSON.parse.
  if (!isJson(response.body)) headers.set("content-type", "text/plain");
  return new Response(response.body, { status: response.status, headers });
}

/** iceberg-js returns only `metadata`; copy the file location into it so it is not lost. */
function keepMetadataLocation(data: unknown): unknown {
  if (typeof data !== "object" || data === null) return data;
  const record = data as Record<string, unknown>;
  const metadata = record.metadata;
  const location = record["metadata-location"];
  if (typeof location === "string" && typeof metadata === "object" && metadata !== null) {
    return { ...record, metadata: { ...metadata, "metadata-location": location } };
  }
  return data;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
