// `iceberg-bot dev` drives the bot as the on-call, so only its own page may use it: a foreign
// Host (DNS rebinding), a foreign Origin (CSRF), a text/plain post (no preflight) and a request
// without the session token are refused; loading the page does not hand the token out (only the
// printed link sets the session cookie); the page itself works.

import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDev } from "../../../src/cli/dev.js";
import { exposedWarning } from "../../../src/cli/dev-guard.js";
import { REDIS_URL } from "../../support/redis.js";

let dev: DevServer;
let port: number;
beforeAll(async () => {
  dev = await startDev({ env: { REDIS_URL }, say: () => {}, port: 0 });
  port = Number(new URL(dev.url).port);
});
afterAll(async () => {
  await dev?.close();
});

/** A raw request, so Host and Origin are exactly what a hostile page's browser would send. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const alert = JSON.stringify({ scenario: "competing-appends" });

describe("the dev page is for its own person only", () => {
  it("gives a plain page load nothing: the token is neither served nor accepted without the printed link", async () => {
    const host = `127.0.0.1:${port}`;
    // Any local program could GET the page; it used to come back with the token inside (1 leak).
    const plain = await send("GET", "/", { host });
    expect(plain.status).toBe(403);
    expect(plain.body).not.toContain(dev.token);
    expect(plain.body).toContain("open the link iceberg-bot dev printed");
    expect(plain.headers["set-cookie"]).toBeUndefined();
    const wrongLink = await send("GET", `/?token=${"x".repeat(dev.token.length)}`, { host });
    expect(wrongLink.status).toBe(403);
    expect(wrongLink.headers["set-cookie"]).toBeUndefined();
    // A cookie for another port's dev server is not this one's session.
    const otherPort = await send("GET", "/", { host, cookie: `iceberg_dev_1=${dev.token}` });
    expect(otherPort.status).toBe(403);
  });

  it("trades the printed link for an HttpOnly, SameSite=Strict cookie, and answers the page's own calls", async () => {
    expect(dev.link).toBe(`${dev.url}?token=${dev.token}`);
    const host = `127.0.0.1:${port}`;
    const opened = await send("GET", new URL(dev.link).pathname + new URL(dev.link).search, { host });
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe("/");
    const cookie = String(opened.headers["set-cookie"]);
    expect(cookie).toContain(`iceberg_dev_${port}=${dev.token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const session = cookie.split(";")[0] as string;

    const page = await send("GET", "/", { host, cookie: session });
    expect(page.status).toBe(200);
    expect(page.body).toContain("<html");
    expect(page.body).not.toContain(dev.token);
    const state = await send("GET", "/api/state", { host: `localhost:${port}`, cookie: session });
    expect(state.status).toBe(200);
    const advanced = await send(
      "POST",
      "/api/advance",
      {
        host,
        origin: `http://127.0.0.1:${port}`,
        "content-type": "application/json",
        cookie: session,
      },
      JSON.stringify({ minutes: 0 }),
    );
    expect(advanced.status).toBe(200);
    // A script may send the token in the header instead of the cookie.
    const scripted = await send("GET", "/api/state", { host, "x-iceberg-dev-token": dev.token });
    expect(scripted.status).toBe(200);
  });

  it("refuses a foreign Host (DNS rebinding) even for the page itself", async () => {
    expect((await send("GET", "/", { host: `attacker.example:${port}` })).status).toBe(421);
    const fired = await send(
      "POST",
      "/api/alert",
      {
        host: `attacker.example:${port}`,
        "content-type": "application/json",
        "x-iceberg-dev-token": dev.token,
      },
      alert,
    );
    expect(fired.status).toBe(421);
  });

  it("refuses a foreign Origin, a text/plain post and a missing or wrong token", async () => {
    const host = `127.0.0.1:${port}`;
    const foreign = await send(
      "POST",
      "/api/alert",
      { host, origin: "https://attacker.example", "content-type": "text/plain" },
      alert,
    );
    expect(foreign.status).toBe(403);
    const plain = await send(
      "POST",
      "/api/alert",
      { host, "content-type": "text/plain", "x-iceberg-dev-token": dev.token },
      alert,
    );
    expect(plain.status).toBe(415);
    const noToken = await send("POST", "/api/alert", { host, "content-type": "application/json" }, alert);
    expect(noToken.status).toBe(403);
    const wrong = await send(
      "POST",
      "/api/action",
      { host, "content-type": "application/json", "x-iceberg-dev-token": "x".repeat(dev.token.length) },
      "{}",
    );
    expect(wrong.status).toBe(403);
    expect((await send("GET", "/api/state", { host })).status).toBe(403);
  });

  it("warns loudly when bound beyond loopback", () => {
    expect(exposedWarning("127.0.0.1")).toBeUndefined();
    expect(exposedWarning("::1")).toBeUndefined();
    expect(exposedWarning("0.0.0.0")).toMatch(/^WARNING: .*0\.0\.0\.0.*beyond this machine/);
  });
});
