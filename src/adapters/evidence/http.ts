// One way to call an evidence source over HTTP: undici with an injected dispatcher, a hard
// deadline, a response size cap, and coded errors that tell unreachable, slow, failing, garbled
// and oversized answers apart. Tokens travel in headers and never reach an error (messages show a
// URL's origin, which never carries user:password).

import type { Dispatcher } from "undici";
import type { z } from "zod";
import type { TlsMaterial } from "../../core/sources/model.js";
import { CodedError, ErrorCode } from "../../errors.js";
import {
  CALLEE_WORDS,
  type Callee,
  classifyTransportError,
  httpStatusError,
  statusMessage,
  tooLarge,
  type Where,
} from "./http-errors.js";
import { parseJsonText, parseWithSchema } from "./parse.js";
import { outcomeOfError, outcomeOfStatus, type SourceObserver } from "./source-watch.js";
import { Agent, request } from "./undici-lean.js";

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** Table metadata grows with history: 100,000 snapshots with Flink summaries is about 90 MiB. */
export const CATALOG_MAX_BYTES = 512 * 1024 * 1024;

let sharedAgent: Agent | undefined;

/** One keep-alive pool for every client that was not given its own dispatcher. */
function sharedDispatcher(): Dispatcher {
  sharedAgent ??= new Agent({ keepAliveTimeout: 10_000, connections: 32 });
  return sharedAgent;
}

/** Closes the shared pool's idle sockets; call once on shutdown. */
export async function closeSharedDispatcher(): Promise<void> {
  const agent = sharedAgent;
  sharedAgent = undefined;
  await agent?.close();
}

/**
 * A pool of a source's own: its CA and client certificate, or no verification at all (a
 * kubeconfig's insecure-skip-tls-verify).
 */
export function tlsPool(tls: TlsMaterial & { insecureSkipTlsVerify?: boolean }) {
  const { ca, cert, key, insecureSkipTlsVerify } = tls;
  return new Agent({
    keepAliveTimeout: 10_000,
    connect: { ca, cert, key, rejectUnauthorized: insecureSkipTlsVerify !== true },
  });
}

/** A source's own pool when it needs one, for mutual TLS or a private CA. */
export function tlsAgent(tls: TlsMaterial | undefined): Agent | undefined {
  return tls && (tls.cert || tls.ca) ? tlsPool(tls) : undefined;
}

export interface HttpSourceOptions {
  source: Callee;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  maxBytes?: number;
  /**
   * Sent with every request unless the request sets the same header (a source's own auth); a
   * function is asked for each request (a secret file followed as it is rotated).
   */
  headers?: SourceHeaders;
  /** Told how each request went (the source watch: metrics, logs, readiness detail). */
  observe?: SourceObserver;
}

/** What an evidence client is given: its base URL and how to call the source behind it. */
export interface SourceClientOptions extends Omit<HttpSourceOptions, "source"> {
  /** Base URL of the source's API (it may carry a path). */
  url: string;
}

export type SourceHeaders = Record<string, string> | (() => Record<string, string>);

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "DELETE" | "PATCH";

export interface HttpRequest {
  method?: HttpMethod;
  url: string | URL;
  headers?: Record<string, string>;
  body?: string;
  /** Overrides the source's timeout for this one request. */
  timeoutMs?: number;
  /** The call as messages name it; "<method> <path>" when absent. */
  what?: string;
  /** Edits the body's bytes in place before they are decoded (see BodyRewrite). */
  rewrite?: BodyRewrite;
}

/**
 * An in-place edit of a body's bytes, made before decoding so that a ~100 MiB body is never held
 * as two strings. The buffer is given `slack(size)` spare bytes past the body.
 */
export interface BodyRewrite {
  slack(size: number): number;
  /** Returns the body's new length, or undefined when it did not fit (the body is then untouched). */
  apply(buffer: Buffer, size: number): number | undefined;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** True when the request's rewrite was applied to the body. */
  rewritten?: boolean;
  /** Pathname only: safe for messages and logs. */
  path: string;
  method: HttpMethod;
}

/** Sends one request and reads the whole body; any HTTP status is returned, not thrown. */
export async function sendRaw(options: HttpSourceOptions, req: HttpRequest): Promise<HttpResponse> {
  const url = typeof req.url === "string" ? new URL(req.url) : req.url;
  const own = typeof options.headers === "function" ? options.headers() : options.headers;
  const headers = own ? { ...own, ...req.headers } : req.headers;
  const method = req.method ?? "GET";
  refuseUserInfo(url, options.source, method);
  const timeoutMs = req.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const what = req.what ?? `${method} ${url.pathname}`;
  const where: Where = { source: options.source, url, method, what, timeoutMs };

  // undici's own timeouts only watch gaps between bytes; this deadline bounds the whole exchange.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let phase: "headers" | "body" = "headers";
  try {
    const response = await request(url, {
      method,
      dispatcher: options.dispatcher ?? sharedDispatcher(),
      headers,
      body: req.body,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    phase = "body";
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxBytes) {
      discard(response.body);
      throw tooLarge(where, maxBytes);
    }
    // With a declared length the body is copied into one buffer as it arrives, so large table
    // metadata is never held twice (chunks plus their concatenation) before it is decoded.
    const collected = new BodyCollector(Number.isFinite(declared) ? declared : undefined, req.rewrite);
    for await (const chunk of response.body) {
      if (collected.add(chunk as Buffer) > maxBytes) {
        discard(response.body);
        throw tooLarge(where, maxBytes);
      }
    }
    const status = response.statusCode;
    options.observe?.(
      outcomeOfStatus(status),
      statusMessage(CALLEE_WORDS[options.source], status, what, undefined),
    );
    const body = collected.text();
    return {
      status,
      headers: flattenHeaders(response.headers),
      body,
      rewritten: collected.rewritten,
      path: url.pathname,
      method,
    };
  } catch (error) {
    const coded =
      error instanceof CodedError
        ? error
        : classifyTransportError(error, where, phase, controller.signal.aborted);
    options.observe?.(outcomeOfError(coded), coded.message);
    throw coded;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A URL with user:password@ (or user@) is never called: config refuses one, and one that comes
 * from elsewhere (a discovered JobManager) must not turn into Basic auth sent wherever it points.
 * The message names neither the user nor the password.
 */
function refuseUserInfo(url: URL, source: Callee, method: HttpMethod): void {
  if (!url.username && !url.password) return;
  throw new CodedError(
    ErrorCode.ConfigInvalid,
    `${CALLEE_WORDS[source]} URL ${url.origin} carries credentials (user:password@); the request was not sent`,
    {
      hint: "Remove the credentials from the URL and give them in the source's auth setting (passwordEnv, tokenEnv or their File forms).",
      details: { source, path: url.pathname, method },
    },
  );
}

/** Sends a request, demands one of the accepted statuses, and returns the raw response. */
export async function send(
  options: HttpSourceOptions,
  req: HttpRequest,
  accept: readonly number[] = [200],
): Promise<HttpResponse> {
  const response = await sendRaw(options, req);
  if (!accept.includes(response.status)) throw httpStatusError(options.source, response);
  return response;
}

/** Sends a request, demands an accepted status, parses the JSON body and checks it with a schema. */
export async function sendJson<S extends z.ZodType>(
  options: HttpSourceOptions,
  req: HttpRequest,
  schema: S,
  accept: readonly number[] = [200],
): Promise<z.output<S>> {
  const headers = { accept: "application/json", ...req.headers };
  const response = await send(options, { ...req, headers }, accept);
  return parseBody(schema, response.body, options.source, `${response.method} ${response.path}`);
}

/** Parses a JSON body and checks it with a schema; a problem names the source and the call. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: string,
  source: Callee,
  what: string,
): z.output<S> {
  const ctx = { source, what };
  return parseWithSchema(schema, parseJsonText(body, ctx), ctx);
}

/** GETs an API path under a source's base URL and checks the JSON answer with a schema. */
export function jsonGetter(options: HttpSourceOptions & { url: string }) {
  return <S extends z.ZodType>(path: string, schema: S, query?: UrlQuery): Promise<z.output<S>> =>
    sendJson(options, { url: buildUrl(options.url, path, query) }, schema);
}

/** Drops a body we will not read; the abort it causes is expected, so it must not surface. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

type UrlQuery = Record<string, string | readonly string[] | undefined>;

/** Joins a base URL (which may carry a path) with an API path and query parameters. */
export function buildUrl(base: string, path: string, query: UrlQuery = {}): URL {
  const root = base.endsWith("/") ? base : `${base}/`;
  const url = new URL(path.replace(/^\//, ""), root);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of typeof value === "string" ? [value] : value) url.searchParams.append(key, item);
  }
  return url;
}

class BodyCollector {
  private buffer: Buffer | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  rewritten = false;

  constructor(
    declaredLength: number | undefined,
    private readonly rewrite: BodyRewrite | undefined,
  ) {
    if (declaredLength !== undefined && declaredLength > 0)
      this.buffer = Buffer.allocUnsafe(declaredLength + (rewrite?.slack(declaredLength) ?? 0));
  }

  /** Adds a chunk and returns the size so far. */
  add(chunk: Buffer): number {
    if (this.buffer && this.size + chunk.length <= this.buffer.length) chunk.copy(this.buffer, this.size);
    else {
      // More than was declared: keep the rest as chunks and let text() join them.
      if (this.buffer) {
        this.chunks.push(this.buffer.subarray(0, this.size));
        this.buffer = undefined;
      }
      this.chunks.push(chunk);
    }
    this.size += chunk.length;
    return this.size;
  }

  text(): string {
    if (this.buffer) {
      const size = this.rewrite?.apply(this.buffer, this.size);
      this.rewritten = size !== undefined;
      return this.buffer.toString("utf8", 0, size ?? this.size);
    }
    return Buffer.concat(this.chunks, this.size).toString("utf8");
  }
}
