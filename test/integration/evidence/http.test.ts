// The HTTP request layer against a plain loopback server that misbehaves in ways the simulator does
// not: slow trickles, oversized bodies, bodies cut mid-way, closed ports.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeSharedDispatcher, send, sendJson, sendRaw } from "../../../src/adapters/evidence/http.js";
import { CodedError, ErrorCode } from "../../../src/errors.js";

type Route = (req: IncomingMessage, res: ServerResponse) => void;

const routes: Record<string, Route> = {
  "/ok": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"value": 42}');
  },
  "/big-declared": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(10_000) });
    res.end("x".repeat(10_000));
  },
  "/big-streamed": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    for (let i = 0; i < 20; i++) res.write("y".repeat(1_000));
    res.end();
  },
  "/split-utf8": (_req, res) => {
    // A multi-byte character split across two writes must decode as one.
    const bytes = Buffer.from('{"note":"naïve → ünïcode"}', "utf8");
    res.writeHead(200, { "content-type": "application/json", "content-length": String(bytes.length) });
    res.write(bytes.subarray(0, 12));
    setTimeout(() => res.end(bytes.subarray(12)), 10);
  },
  "/cut": (req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
    res.write('{"value": ');
    setTimeout(() => req.socket.destroy(), 20);
  },
  "/trickle": (_req, res) => {
    // Each byte comes well inside bodyTimeout, so only the overall deadline can stop it.
    res.writeHead(200, { "content-type": "application/json" });
    const timer = setInterval(() => res.write(" "), 50);
    res.on("close", () => clearInterval(timer));
  },
  "/iceberg-404": (_req, res) => {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        error: { message: "Table does not exist: db.x", type: "NoSuchTableException", code: 404 },
      }),
    );
  },
  "/echo-headers": (req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ value: req.headers.authorization ?? "" }));
  },
};

let server: Server;
let base: string;
const agent = new Agent();

beforeAll(async () => {
  server = createServer((req, res) => (routes[req.url ?? ""] ?? routes["/ok"]!)(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await agent.close();
});

const opts = (extra: { timeoutMs?: number; maxBytes?: number } = {}) => ({
  source: "flink" as const,
  dispatcher: agent,
  timeoutMs: 2_000,
  ...extra,
});

async function codedFailure(pending: Promise<unknown>): Promise<CodedError> {
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CodedError);
  return error as CodedError;
}

describe("http request layer", () => {
  it("reads whole bodies with and without a declared length, multi-byte text intact", async () => {
    const declared = await sendRaw(opts(), { url: `${base}/big-declared` });
    expect(declared.body).toBe("x".repeat(10_000));
    const streamed = await sendRaw(opts(), { url: `${base}/big-streamed` });
    expect(streamed.body).toBe("y".repeat(20_000));
    const split = await sendRaw(opts(), { url: `${base}/split-utf8` });
    expect(split.body).toBe('{"note":"naïve → ünïcode"}');
  });

  it("parses JSON through a schema", async () => {
    const body = await sendJson(opts(), { url: `${base}/ok` }, z.object({ value: z.number() }));
    expect(body.value).toBe(42);
  });

  it("uses the shared pool when no dispatcher is given, and can close it", async () => {
    const schema = z.object({ value: z.number() });
    expect((await sendJson({ source: "flink" }, { url: `${base}/ok` }, schema)).value).toBe(42);
    await closeSharedDispatcher();
    // A fresh pool is made on the next call.
    expect((await sendJson({ source: "flink" }, { url: `${base}/ok` }, schema)).value).toBe(42);
    await closeSharedDispatcher();
  });

  it("names the field when a body misses the schema", async () => {
    const error = await codedFailure(
      sendJson(opts(), { url: `${base}/ok` }, z.object({ value: z.string() })),
    );
    expect(error.code).toBe(ErrorCode.SourceMalformed);
    expect(error.message).toContain("value");
    expect(error.details).toMatchObject({ field: "value", reason: "schema" });
  });

  it("refuses a body whose declared length is over the cap", async () => {
    const error = await codedFailure(sendRaw(opts({ maxBytes: 1_000 }), { url: `${base}/big-declared` }));
    expect(error.code).toBe(ErrorCode.SourceTooLarge);
  });

  it("stops reading a streamed body once it passes the cap", async () => {
    const error = await codedFailure(sendRaw(opts({ maxBytes: 5_000 }), { url: `${base}/big-streamed` }));
    expect(error.code).toBe(ErrorCode.SourceTooLarge);
    expect(error.details).toMatchObject({ source: "flink", path: "/big-streamed", maxBytes: 5_000 });
  });

  it("reports a body cut off mid-way as malformed", async () => {
    const error = await codedFailure(sendRaw(opts(), { url: `${base}/cut` }));
    expect(error.code).toBe(ErrorCode.SourceMalformed);
    expect(error.details?.reason).toBe("truncated");
  });

  it("cuts a trickling body at the overall deadline", async () => {
    const error = await codedFailure(sendRaw(opts({ timeoutMs: 400 }), { url: `${base}/trickle` }));
    expect(error.code).toBe(ErrorCode.SourceTimeout);
    // Cut by the 400 ms deadline while the body trickled (said by the error, not timed).
    expect(error.details).toMatchObject({ timeoutMs: 400, phase: "body" });
  });

  it("never sends a request to a URL with user:password in it, and names neither in the error", async () => {
    const seen: { authorization?: string; url?: string }[] = [];
    const server = createServer((req, res) => {
      seen.push({ authorization: req.headers.authorization, url: req.url });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const error = await codedFailure(
        send(opts(), { url: `http://connect-user:p%40ss-w0rd@127.0.0.1:${port}/connectors` }),
      );
      expect(error.code).toBe(ErrorCode.ConfigInvalid);
      expect(error.message).toContain("carries credentials");
      // The URL used to become a Basic authorization header sent to wherever it pointed.
      expect(seen).toEqual([]);
      const shown = JSON.stringify({ message: error.message, hint: error.hint, details: error.details });
      expect(shown).not.toContain("w0rd");
      expect(shown).not.toContain("connect-user");
    } finally {
      server.close();
    }
  });

  it("says a 429 is rate limiting and when it retries, and names the bot's own refused credentials", async () => {
    const server = createServer((req, res) => {
      const status = Number(req.url?.slice(1));
      res.writeHead(status, {
        "content-type": "application/json",
        ...(status === 429 ? { "retry-after": "7" } : {}),
      });
      res.end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const limited = await codedFailure(send(opts(), { url: `http://127.0.0.1:${port}/429` }));
      expect(limited.message).toMatch(/rate limited the bot \(HTTP 429 to GET \/429\); retrying after 7 s/);
      expect(limited.details?.retryAfterMs).toBe(7000);
      expect(limited.retryable).toBe(true);
      expect(limited.hint).not.toMatch(/documentation/);
      const forbidden = await codedFailure(send(opts(), { url: `http://127.0.0.1:${port}/403` }));
      expect(forbidden.code).toBe(ErrorCode.AuthFailed);
      expect(forbidden.message).toMatch(/denied the bot's own credentials permission \(HTTP 403/);
      const unauthorized = await codedFailure(send(opts(), { url: `http://127.0.0.1:${port}/401` }));
      expect(unauthorized.message).toMatch(/refused the bot's own credentials \(HTTP 401/);
    } finally {
      server.close();
    }
  });

  it("reports a closed port as unreachable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await codedFailure(sendRaw(opts(), { url: `http://127.0.0.1:${port}/jobs` }));
    expect(error.code).toBe(ErrorCode.SourceUnreachable);
    expect(error.details?.errorCode).toBe("ECONNREFUSED");
    expect(error.retryable).toBe(true);
  });

  it("turns an unexpected status into a coded error carrying the upstream message", async () => {
    const error = await codedFailure(send(opts(), { url: `${base}/iceberg-404` }));
    expect(error.code).toBe(ErrorCode.SourceHttpStatus);
    expect(error.message).toContain("Table does not exist: db.x");
    expect(error.details).toMatchObject({
      status: 404,
      upstreamType: "NoSuchTableException",
      path: "/iceberg-404",
    });
  });

  it("never puts request headers such as tokens into errors", async () => {
    const secret = "Bearer s3cr3t-token-value";
    const error = await codedFailure(
      sendJson(
        opts(),
        { url: `${base}/echo-headers`, headers: { authorization: secret } },
        z.object({ value: z.number() }),
      ),
    );
    expect(JSON.stringify({ m: error.message, d: error.details, h: error.hint })).not.toContain("s3cr3t");
  });
});
