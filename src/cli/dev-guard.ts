// The dev page drives a bot as the on-call: a foreign web page must not do the same. Every
// request must name this server in Host (a DNS-rebinding page names its own domain), a request
// from a page must come from this origin (CSRF), a POST must be JSON (a text/plain form post
// needs no preflight), and every call carries the session token. The page itself never holds
// the token: `dev` prints a link with it, and opening that link trades it for an HttpOnly,
// SameSite=Strict cookie, so another local program that loads the page learns nothing.

import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { tokenMatches } from "../adapters/http/webhook.js";

const DEV_TOKEN_HEADER = "x-iceberg-dev-token";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The query parameter of the printed link that carries the token. */
export const DEV_TOKEN_PARAM = "token";

export type DevGuard = ReturnType<typeof createDevGuard>;

/** `boundHost`: what the server listens on; `port()`: its port once listening. */
export function createDevGuard(boundHost: string, port: () => number) {
  const token = randomBytes(24).toString("base64url");
  const names = (): Set<string> => {
    const p = port();
    const hosts = ["127.0.0.1", "localhost", "[::1]"];
    if (!isLoopbackHost(boundHost) && boundHost !== "0.0.0.0" && boundHost !== "::") hosts.push(boundHost);
    return new Set(hosts.map((h) => `${h}:${p}`.toLowerCase()));
  };
  // Per port: cookies do not tell ports apart.
  const cookieName = () => `iceberg_dev_${port()}`;
  return {
    token,
    /** The Set-Cookie value that binds this browser to the session. */
    sessionCookie: () => `${cookieName()}=${token}; HttpOnly; SameSite=Strict; Path=/`,
    /** True when the request carries the token in the link's query, for GET / only. */
    linkCarriesToken: (url: URL) => tokenMatches(url.searchParams.get(DEV_TOKEN_PARAM) ?? undefined, token),
    /** Undefined when the request may go on; otherwise the status and why. */
    refuse(req: IncomingMessage, api: boolean): { status: number; error: string } | undefined {
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
      // The page's calls carry the cookie; a script may send the token in a header instead.
      const given = req.headers[DEV_TOKEN_HEADER];
      const fromCookie = cookieOf(req.headers.cookie, cookieName());
      const ok = [given, fromCookie].some((t) => typeof t === "string" && tokenMatches(t, token));
      if (!ok) return { status: 403, error: NO_SESSION };
      return undefined;
    },
  };
}

/** Why a request without the session is refused: the way in is the printed link. */
const NO_SESSION = "missing or wrong session token; open the link iceberg-bot dev printed when it started";

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

/** The warning `dev` prints when the page is reachable from beyond this machine. */
export function exposedWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return [
    `WARNING: the dev page listens on ${host}, beyond this machine.`,
    "Anyone who can reach it and learns the link it printed can fire alerts and approve changes",
    "as the on-call. Use the default --host 127.0.0.1 unless you mean it.",
  ].join("\n");
}
