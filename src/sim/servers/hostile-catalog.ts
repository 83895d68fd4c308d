// A broken or hostile Iceberg REST catalog on loopback, for the sweep's bounds: one that ignores
// ?parent= (answers its top-level namespaces for every parent), one whose next-page-token never
// ends, one that answers 429 with Retry-After a number of times first, and one with thousands of
// namespaces (each answer a little late, so requests overlap). Counts what it is asked, and how
// many requests it held at once.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type HostileMode = "ignore-parent" | "endless-token" | "rate-limited" | "many-namespaces";

export interface HostileCatalog {
  url: string;
  /** Requests received so far. */
  readonly requests: number;
  /** The most requests it was answering at the same time. */
  readonly maxInFlight: number;
  /** Requests per path (without query). */
  readonly byPath: Map<string, number>;
  /** When each request came (ms, performance.now()), with its answer's status. */
  readonly log: { atMs: number; status: number }[];
  close(): Promise<void>;
}

export async function startHostileCatalog(
  mode: HostileMode,
  options: { retryAfterSeconds?: number; limitedAnswers?: number; namespaces?: number } = {},
): Promise<HostileCatalog> {
  let requests = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let limited = options.limitedAnswers ?? 2;
  const byPath = new Map<string, number>();
  const log: { atMs: number; status: number }[] = [];
  const server = createServer((req, res) => {
    requests++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const url = new URL(req.url ?? "/", "http://x");
    byPath.set(url.pathname, (byPath.get(url.pathname) ?? 0) + 1);
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      inFlight--;
      log.push({ atMs: performance.now(), status });
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    // Many namespaces: each answer waits a moment, so a fan-out shows how many it sends at once.
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      mode === "many-namespaces"
        ? setTimeout(() => reply(status, body, headers), 2)
        : reply(status, body, headers);
    if (url.pathname === "/v1/config") return send(200, { defaults: {}, overrides: {} });
    if (mode === "rate-limited" && limited > 0) {
      limited--;
      return send(
        429,
        { error: { message: "slow down", type: "TooManyRequests", code: 429 } },
        { "retry-after": String(options.retryAfterSeconds ?? 1) },
      );
    }
    if (url.pathname === "/v1/namespaces") {
      if (mode === "many-namespaces") {
        if (url.searchParams.get("parent")) return send(200, { namespaces: [] });
        const count = options.namespaces ?? 2000;
        return send(200, { namespaces: Array.from({ length: count }, (_, i) => [`ns${i}`]) });
      }
      if (mode === "endless-token") {
        if (url.searchParams.get("parent")) return send(200, { namespaces: [] });
        const n = Number(url.searchParams.get("pageToken") || "0");
        return send(200, { namespaces: [[`ns${n}`]], "next-page-token": String(n + 1) });
      }
      // Ignores ?parent=: every parent gets the same top level.
      return send(200, { namespaces: [["alpha"], ["beta"]] });
    }
    if (/^\/v1\/namespaces\/[^/]+\/tables$/.test(url.pathname)) return send(200, { identifiers: [] });
    send(404, { error: { message: "no such thing", type: "NotFoundException", code: 404 } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    byPath,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
