// The dev page drives a bot as the on-call: a foreign web page must not do the same. Every
// request must name this server in Host (a DNS-rebinding page names its own domain), a request
// from a page must come from this origin (CSRF), a POST must be JSON (a text/plain form post
// needs no preflight), and every API call carries the session token the page was served with.

import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const DEV_TOKEN_HEADER = "x-iceberg-dev-token";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export interface DevGuard {
  readonly token: string;
  /** Undefined when the request may go on; otherwise the status and why. */
  refuse(req: IncomingMessage, api: boolean): { status: number; error: string } | undefined;
}

/** `boundHost`: what the server listens on; `port()`: its port once listening. */
export function createDevGuard(boundHost: string, port: () => number, token = newToken()): DevGuard {
  const names = (): Set<string> => {
    const p = port();
    const hosts = ["127.0.0.1", "localhost", "[::1]"];
    if (!isLoopbackHost(boundHost) && boundHost !== "0.0.0.0" && boundHost !== "::") hosts.push(boundHost);
    return new Set(hosts.map((h) => `${h}:${p}`.toLowerCase()));
  };
  return {
    token,
    refuse(req, api) {
      const allowed = names();
      const host = (req.headers.host ?? "").toLowerCase();
      if (!allowed.has(host))
        return { status: 421, error: `Host ${JSON.stringify(host.slice(0, 80))} is not this dev server` };
      const origin = req.headers.origin;
      if (origin !== undefined && !allowed.has(origin.toLowerCase().replace(/^http:\/\//, ""))) {
        return { status: 403, error: "requests from other web pages are refused" };
      }
      if (!api) return undefined;
      if (req.method === "POST") {
        const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
        if (type !== "application/json") return { status: 415, error: "send application/json" };
      }
      const given = req.headers[DEV_TOKEN_HEADER];
      if (typeof given !== "string" || !sameText(given, token)) {
        return { status: 403, error: "missing or wrong session token; reload the page" };
      }
      return undefined;
    },
  };
}

function newToken(): string {
  return randomBytes(24).toString("base64url");
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The warning `dev` prints when the page is reachable from beyond this machine. */
export function exposedWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return [
    `WARNING: the dev page listens on ${host}, beyond this machine.`,
    "Anyone who can reach it and learns its session token can fire alerts and approve changes",
    "as the on-call. Use the default --host 127.0.0.1 unless you mean it.",
  ].join("\n");
}
