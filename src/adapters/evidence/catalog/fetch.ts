// The fetch that iceberg-js is given: every catalog call goes through our undici request layer
// (timeout, size cap, coded transport errors), carries the current token, retries once with a
// fresh token after a 401/419, and hands over bodies whose 64-bit snapshot ids have been made exact.

import { recordExactIds, recordMetadataLocation } from "../exact-ids.js";
import { type HttpMethod, type HttpResponse, type HttpSourceOptions, sendRaw } from "../http.js";
import { protectSnapshotIds } from "../snapshot-ids.js";
import type { TokenProvider } from "./auth.js";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function createCatalogFetch(http: HttpSourceOptions, tokens: TokenProvider): FetchLike {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const method = (init?.method ?? "GET").toUpperCase() as HttpMethod;
    const headers = { accept: "application/json", ...headerRecord(init?.headers) };
    const body = typeof init?.body === "string" ? init.body : undefined;

    const attempt = async () =>
      sendRaw(http, {
        method,
        url,
        body,
        headers: { ...headers, ...(await tokens.headers({ method, url, headers, body })) },
      });
    let response = await attempt();
    if ((response.status === 401 || response.status === 419) && tokens.invalidate())
      response = await attempt();
    return toFetchResponse(response);
  };
}

function toFetchResponse(response: HttpResponse): Response {
  const headers = new Headers(response.headers);
  const noBody = response.status === 204 || response.status === 205 || response.status === 304;
  if (noBody || response.method === "HEAD") return new Response(null, { status: response.status, headers });

  if (response.status >= 200 && response.status < 300) {
    headers.set("content-type", "application/json");
    const text = response.body;
    keepMetadataLocation(text);
    return textResponse(response.status, headers, recordExactIds(text) ? text : protectSnapshotIds(text));
  }
  // iceberg-js parses error bodies labelled JSON; an HTML error page must not reach JSON.parse.
  if (!isJson(response.body)) headers.set("content-type", "text/plain");
  return new Response(response.body, { status: response.status, headers });
}

/**
 * iceberg-js only calls ok, status, headers.get and text() on what fetch returns. Handing it the
 * text we already hold, instead of a real Response, saves re-encoding and re-decoding bodies that
 * reach ~100 MiB on tables with long histories (JSON.parse stays the only full pass over them).
 */
function textResponse(status: number, headers: Headers, text: string): Response {
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

function headerRecord(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
