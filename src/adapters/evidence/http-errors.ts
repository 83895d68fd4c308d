// The coded errors of a source's HTTP call: what a status means (rate limited, refused credentials,
// failing), and which transport failure it was (unreachable, slow, cut short, oversized).

import type { SourceName } from "../../core/ids.js";
import { SOURCE_WORDS } from "../../core/words/labels.js";
import { CodedError, ErrorCode } from "../../errors.js";
import { outcomeOfStatus } from "./source-watch.js";
import { describeUpstreamError, type UpstreamError } from "./upstream-error.js";

/** Who a request goes to: an evidence source, or the Kubernetes API that discovery lists. */
export type Callee = SourceName | "kubernetes";

export const CALLEE_WORDS: Record<Callee, string> = { ...SOURCE_WORDS, kubernetes: "Kubernetes API" };

const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);
const TIMEOUT_CODES = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
]);
const CUT_SHORT_CODES = new Set(["UND_ERR_RES_CONTENT_LENGTH_MISMATCH", "HPE_INVALID_CHUNK_SIZE"]);

/** A status answer as a coded error needs it: the call as messages name it, and what the upstream said. */
export interface StatusAnswer {
  status: number;
  what: string;
  said: UpstreamError;
  retryAfterMs?: number;
  /** Where the call went (path and method, or the caller's own terms). */
  details: Record<string, unknown>;
}

/** A coded error for an HTTP status: refused credentials, a failure worth retrying, or neither. */
export function statusError(
  source: Callee,
  answer: StatusAnswer,
  hint = statusHint(source, answer.status),
  cause?: unknown,
): CodedError {
  const { status, said, retryAfterMs } = answer;
  const outcome = outcomeOfStatus(status);
  return new CodedError(
    outcome === "refused" ? ErrorCode.AuthFailed : ErrorCode.SourceHttpStatus,
    statusMessage(CALLEE_WORDS[source], status, answer.what, said.message, retryAfterMs),
    {
      hint,
      retryable: outcome === "error",
      details: {
        source,
        ...answer.details,
        status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        ...(said.type ? { upstreamType: said.type } : {}),
        ...(said.code !== undefined ? { upstreamCode: said.code } : {}),
      },
      cause,
    },
  );
}

/** A coded error for an HTTP response's status, with what the upstream said about it. */
export function httpStatusError(
  source: Callee,
  response: { status: number; body: string; path: string; method: string; headers?: Record<string, string> },
): CodedError {
  const { status, path, method } = response;
  return statusError(source, {
    status,
    what: `${method} ${path}`,
    said: describeUpstreamError(response.body),
    retryAfterMs: retryAfterOf(response.headers),
    details: { path, method },
  });
}

/**
 * What a status means for the bot: a 429 is the source asking it to slow down, and a 401/403 is
 * the source refusing the bot's own credentials (not the source being down or the table broken).
 */
export function statusMessage(
  label: string,
  status: number,
  at: string,
  said: string | undefined,
  retryAfterMs?: number,
): string {
  const tail = said ? `: ${said}` : "";
  if (status === 429) {
    const wait = retryAfterMs === undefined ? "" : `; retrying after ${Math.ceil(retryAfterMs / 1000)} s`;
    return `${label} rate limited the bot (HTTP 429 to ${at})${wait}${tail}`;
  }
  if (status === 401 || status === 419)
    return `${label} refused the bot's own credentials (HTTP ${status} to ${at})${tail}`;
  if (status === 403)
    return `${label} denied the bot's own credentials permission (HTTP 403 to ${at})${tail}`;
  return `${label} answered HTTP ${status} to ${at}${tail}`;
}

/** Retry-After in milliseconds (seconds or an HTTP date), capped at an hour; absent when missing or bad. */
function retryAfterOf(headers: Record<string, string> | undefined, nowMs = Date.now()): number | undefined {
  const raw = headers?.["retry-after"]?.trim();
  if (!raw) return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(raw)) ms = Number(raw) * 1000;
  else {
    const at = Date.parse(raw);
    if (!Number.isFinite(at)) return undefined;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, 3_600_000);
}

function statusHint(source: Callee, status: number): string {
  if (status === 401 || status === 419)
    return `Check the credentials configured for the ${CALLEE_WORDS[source]}.`;
  if (status === 403) return `The credentials for the ${CALLEE_WORDS[source]} lack permission for this call.`;
  if (status === 429)
    return `The ${CALLEE_WORDS[source]} asks the bot to slow down; the bot waits as asked. If it keeps happening, lower sweep.ratePerSecond in BOT_CONFIG.`;
  if (status === 404) return "Check the name or id; it does not exist on that server.";
  if (status >= 500)
    return `The ${CALLEE_WORDS[source]} failed on its side; look at its logs, then try again.`;
  return `Check the request against the ${CALLEE_WORDS[source]} documentation.`;
}

export interface Where {
  source: Callee;
  url: URL;
  method: string;
  /** The call as messages name it: "GET /jobs/overview", or what the caller says it is. */
  what: string;
  timeoutMs: number;
}

function details(where: Where, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { source: where.source, path: where.url.pathname, method: where.method, ...extra };
}

export function tooLarge(where: Where, maxBytes: number): CodedError {
  return new CodedError(
    ErrorCode.SourceTooLarge,
    `${CALLEE_WORDS[where.source]} sent more than ${maxBytes} bytes for ${where.what}; reading stopped`,
    {
      hint: "The response is far larger than expected; check that the URL points at the right API.",
      details: details(where, { maxBytes }),
    },
  );
}

export function classifyTransportError(
  error: unknown,
  where: Where,
  phase: "headers" | "body",
  deadlinePassed: boolean,
): CodedError {
  const label = CALLEE_WORDS[where.source];
  const codes = errorCodes(error);
  const at = where.what;
  if (deadlinePassed || codes.some((c) => TIMEOUT_CODES.has(c))) {
    return new CodedError(
      ErrorCode.SourceTimeout,
      `${label} at ${where.url.origin} did not answer ${at} within ${where.timeoutMs} ms`,
      {
        hint: "The server is slow or stuck; check its health, or raise SOURCE_TIMEOUT_MS.",
        retryable: true,
        details: details(where, { timeoutMs: where.timeoutMs, phase }),
        cause: error,
      },
    );
  }
  if (
    phase === "body" &&
    (codes.some((c) => UNREACHABLE_CODES.has(c) || CUT_SHORT_CODES.has(c)) || codes.length === 0)
  ) {
    return new CodedError(ErrorCode.SourceMalformed, `${label} cut the response to ${at} short`, {
      hint: "The connection dropped mid-answer; a proxy or the server may be restarting. Try again.",
      retryable: true,
      details: details(where, { reason: "truncated", errorCode: codes[0] }),
      cause: error,
    });
  }
  const reason = codes[0] ?? (error instanceof Error ? error.message : String(error));
  // A certificate the bot does not trust stays untrusted however often it is tried.
  const tls = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|SSL/i.test(
    `${codes.join(" ")} ${error instanceof Error ? error.message : ""}`,
  );
  return new CodedError(
    ErrorCode.SourceUnreachable,
    tls
      ? `${label} at ${where.url.origin} (${at}): its certificate is not trusted (${reason})`
      : `${label} is unreachable at ${where.url.origin} (${at}) (${reason})`,
    {
      hint: tls
        ? "Check the CA that signs the server's certificate: the source's tls.caFile, or for Kubernetes the service account's ca.crt or the kubeconfig's certificate-authority."
        : "Check the URL in the configuration (for Kubernetes: KUBERNETES_SERVICE_HOST or the kubeconfig's server) and that the service is up and reachable from the bot.",
      retryable: !tls,
      details: details(where, { errorCode: reason }),
      cause: error,
    },
  );
}

/** Error codes along the cause chain, including each member of an AggregateError. */
function errorCodes(error: unknown, seen = new Set<unknown>()): string[] {
  if (!error || typeof error !== "object" || seen.has(error)) return [];
  seen.add(error);
  const found: string[] = [];
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") found.push(code);
  if (error instanceof AggregateError)
    for (const inner of error.errors) found.push(...errorCodes(inner, seen));
  found.push(...errorCodes((error as { cause?: unknown }).cause, seen));
  return found;
}
