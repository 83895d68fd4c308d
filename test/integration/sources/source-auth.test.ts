// Each source with its own credentials, against loopback stand-ins that check them the way the
// real services do: a catalog behind AWS SigV4 (verified with AWS's own signer, recomputed from
// what arrived), credentials from static keys, a web identity token exchanged with a loopback STS,
// and the container credentials endpoint; Flink and Kafka Connect behind basic auth, a bearer
// token and mutual TLS (certificates made with openssl for this run only). Requests that pass
// the check are forwarded to the simulated lakehouse, so the clients read real answers.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { loadConfig } from "../../../src/config.js";
import { parseTableName } from "../../../src/core/table-name.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";

type Check = (req: IncomingMessage, body: string) => Promise<boolean> | boolean;

interface Gate {
  url: string;
  seen: { path: string; headers: IncomingMessage["headers"] }[];
  close(): Promise<void>;
}

/** A loopback server that lets through to `upstream` only what `check` accepts (else 401/403). */
async function startGate(options: {
  upstream: string;
  check: Check;
  tls?: { key: string; cert: string; ca: string };
  deny?: number;
  routes?: Record<string, (req: IncomingMessage, body: string, res: ServerResponse) => void>;
}): Promise<Gate> {
  const seen: Gate["seen"] = [];
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const pathname = new URL(req.url ?? "/", "http://x").pathname;
    seen.push({ path: pathname, headers: req.headers });
    const route = options.routes?.[pathname];
    if (route) return route(req, body, res);
    if (!(await options.check(req, body))) {
      res.writeHead(options.deny ?? 401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { message: "not allowed", type: "NotAuthorizedException", code: 401 } }),
      );
      return;
    }
    const forwarded = await request(`${options.upstream}${req.url}`, {
      method: req.method as "GET",
      headers: { "content-type": req.headers["content-type"] ?? "application/json" },
      body: body === "" ? undefined : body,
    });
    const text = await forwarded.body.text();
    res.writeHead(forwarded.statusCode, { "content-type": "application/json" });
    res.end(text);
  };
  const server = options.tls
    ? https.createServer(
        {
          key: options.tls.key,
          cert: options.tls.cert,
          ca: options.tls.ca,
          requestCert: true,
          rejectUnauthorized: true,
        },
        (req, res) => void handler(req, res),
      )
    : http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const REGION = "eu-west-1";
const STATIC = { accessKeyId: "AKIDSTATIC000001", secretAccessKey: "static-secret-key-000001" };
const TEMPORARY = {
  accessKeyId: "ASIATEMPORARY0001",
  secretAccessKey: "temporary-secret-key-0001",
  sessionToken: "temporary-session-token-0001",
};
const CONTAINER = {
  accessKeyId: "ASIACONTAINER0001",
  secretAccessKey: "container-secret-key-0001",
  sessionToken: "container-session-token-0001",
};

/** Recomputes the request's signature with AWS's signer and the credentials the server expects. */
async function sigV4Valid(
  req: IncomingMessage,
  body: string,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  signingName: string,
): Promise<boolean> {
  const authorization = req.headers.authorization ?? "";
  const signed = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(";") ?? [];
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!date || !signed.includes("host")) return false;
  // The body arrived as it was signed.
  const { createHash } = await import("node:crypto");
  if (req.headers["x-amz-content-sha256"] !== createHash("sha256").update(body).digest("hex")) return false;
  if (credentials.sessionToken && req.headers["x-amz-security-token"] !== credentials.sessionToken)
    return false;
  const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const headers: Record<string, string> = {};
  for (const name of signed) headers[name] = String(req.headers[name] ?? "");
  const signer = new SignatureV4({ service: signingName, region: REGION, credentials, sha256: Sha256 });
  const expected = await signer.sign(
    {
      method: req.method ?? "GET",
      protocol: "http:",
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query,
      headers,
      body,
    },
    {
      signingDate: new Date(Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!)),
    },
  );
  return expected.headers.authorization === authorization;
}

let lakehouse: Lakehouse;
let dir: string;
const gates: Gate[] = [];
beforeAll(async () => {
  lakehouse = await startLakehouse({ scenario: "competing-appends" });
  dir = mkdtempSync(path.join(tmpdir(), "source-auth-"));
});
afterAll(async () => {
  await Promise.all(gates.map((g) => g.close()));
  await lakehouse?.close();
  rmSync(dir, { recursive: true, force: true });
});

function sigv4Config(extraEnv: Record<string, string>, catalogUrl: string) {
  return loadConfig({
    AWS_REGION: REGION,
    BOT_CONFIG: `sources:\n  catalogs:\n    - name: glue\n      url: ${catalogUrl}\n      auth: { type: sigv4, signingName: glue }\n`,
    ...extraEnv,
  });
}

const events = parseTableName("db.events");

describe("a catalog behind AWS SigV4", () => {
  it("signs every request (reads and a commit with a body) with static keys from the environment", async () => {
    const gate = await startGate({
      upstream: lakehouse.urls.catalog,
      check: (req, body) => sigV4Valid(req, body, STATIC, "glue"),
      deny: 403,
    });
    gates.push(gate);
    const config = sigv4Config(
      { AWS_ACCESS_KEY_ID: STATIC.accessKeyId, AWS_SECRET_ACCESS_KEY: STATIC.secretAccessKey },
      gate.url,
    );
    const catalog = createEvidencePorts(config, { timeoutMs: 5000 }).catalog!;
    const table = await catalog.loadTable(events);
    expect(table.ref).toEqual(events);
    await catalog.commitProperties(events, {
      expectedUuid: table.uuid,
      set: { "commit.retry.num-retries": "9" },
      remove: [],
    });
    expect(
      lakehouse.state().tables.find((t) => t.name === "db.events")?.properties["commit.retry.num-retries"],
    ).toBe("9");
    expect(
      gate.seen.every((s) =>
        String(s.headers.authorization).startsWith("AWS4-HMAC-SHA256 Credential=AKIDSTATIC000001/"),
      ),
    ).toBe(true);
    expect(String(gate.seen[0]?.headers.authorization)).toContain(`/${REGION}/glue/aws4_request`);
  });

  it("is refused when the signature does not match (another secret), with no secret in the error", async () => {
    const gate = await startGate({
      upstream: lakehouse.urls.catalog,
      check: (req, body) => sigV4Valid(req, body, STATIC, "glue"),
      deny: 403,
    });
    gates.push(gate);
    const config = sigv4Config(
      { AWS_ACCESS_KEY_ID: STATIC.accessKeyId, AWS_SECRET_ACCESS_KEY: "a-wrong-secret-key-0000" },
      gate.url,
    );
    const error = await createEvidencePorts(config, { timeoutMs: 5000 })
      .catalog!.loadTable(events)
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(
      JSON.stringify({
        message: (error as Error).message,
        details: (error as { details?: unknown }).details,
      }),
    ).not.toContain("a-wrong-secret-key-0000");
    expect((error as { details?: { status?: number } }).details?.status).toBe(403);
  });

  it("exchanges a web identity token with STS (AssumeRoleWithWebIdentity) and signs with the temporary keys", async () => {
    const tokenFile = path.join(dir, "web-identity-token");
    writeFileSync(tokenFile, "eyJhbGciOiJSUzI1NiJ9.service-account-token.sig\n");
    const stsCalls: URLSearchParams[] = [];
    const gate = await startGate({
      upstream: lakehouse.urls.catalog,
      check: (req, body) => sigV4Valid(req, body, TEMPORARY, "glue"),
      deny: 403,
      routes: {
        "/sts/": (_req, body, res) => {
          const form = new URLSearchParams(body);
          stsCalls.push(form);
          const ok =
            form.get("Action") === "AssumeRoleWithWebIdentity" &&
            form.get("RoleArn") === "arn:aws:iam::123456789012:role/iceberg-bot" &&
            form.get("WebIdentityToken") === "eyJhbGciOiJSUzI1NiJ9.service-account-token.sig";
          res.writeHead(ok ? 200 : 403, { "content-type": "text/xml" });
          res.end(
            ok
              ? `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>${TEMPORARY.accessKeyId}</AccessKeyId><SecretAccessKey>${TEMPORARY.secretAccessKey}</SecretAccessKey><SessionToken>${TEMPORARY.sessionToken}</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`
              : "<ErrorResponse><Error><Code>AccessDenied</Code></Error></ErrorResponse>",
          );
        },
      },
    });
    gates.push(gate);
    const config = sigv4Config(
      {
        AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile,
        AWS_ROLE_ARN: "arn:aws:iam::123456789012:role/iceberg-bot",
        AWS_ENDPOINT_URL_STS: `${gate.url}/sts/`,
      },
      gate.url,
    );
    const catalog = createEvidencePorts(config, { timeoutMs: 5000 }).catalog!;
    await catalog.loadTable(events);
    await catalog.listNamespaces();
    // One exchange; the temporary keys are kept until they near their expiry.
    expect(stsCalls).toHaveLength(1);
    const signed = gate.seen.filter((s) => s.path !== "/sts/");
    expect(signed.length).toBeGreaterThan(1);
    expect(signed.every((s) => s.headers["x-amz-security-token"] === TEMPORARY.sessionToken)).toBe(true);
  });

  it("reads container credentials (AWS_CONTAINER_CREDENTIALS_FULL_URI) with their authorization token", async () => {
    const gate = await startGate({
      upstream: lakehouse.urls.catalog,
      check: (req, body) => sigV4Valid(req, body, CONTAINER, "s3tables"),
      deny: 403,
      routes: {
        "/creds": (req, _body, res) => {
          const ok = req.headers.authorization === "container-auth-token-1";
          res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
          res.end(
            JSON.stringify(
              ok
                ? {
                    AccessKeyId: CONTAINER.accessKeyId,
                    SecretAccessKey: CONTAINER.secretAccessKey,
                    Token: CONTAINER.sessionToken,
                    Expiration: "2099-01-01T00:00:00Z",
                  }
                : { message: "no" },
            ),
          );
        },
      },
    });
    gates.push(gate);
    const config = loadConfig({
      AWS_REGION: REGION,
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `${gate.url}/creds`,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: "container-auth-token-1",
      BOT_CONFIG: `sources:\n  catalogs:\n    - name: s3tables\n      url: ${gate.url}\n      auth: { type: sigv4, signingName: s3tables }\n`,
    });
    const table = await createEvidencePorts(config, { timeoutMs: 5000 }).catalog!.loadTable(events);
    expect(table.ref).toEqual(events);
    expect(String(gate.seen.at(-1)?.headers.authorization)).toContain("/s3tables/aws4_request");
  });
});

describe("Flink and Kafka Connect with their own credentials", () => {
  it("sends basic auth to one Connect cluster and a bearer token to one Flink source", async () => {
    const basic = `Basic ${Buffer.from("bot:connect-pass-1").toString("base64")}`;
    const connect = await startGate({
      upstream: lakehouse.urls.connect,
      check: (req) => req.headers.authorization === basic,
    });
    const flink = await startGate({
      upstream: lakehouse.urls.flink,
      check: (req) => req.headers.authorization === "Bearer flink-token-1",
    });
    gates.push(connect, flink);
    const config = loadConfig({
      CONNECT_PASSWORD: "connect-pass-1",
      FLINK_TOKEN: "flink-token-1",
      BOT_CONFIG: `sources:
  flink:
    - name: flink-a
      url: ${flink.url}
      auth: { type: bearer, tokenEnv: FLINK_TOKEN }
  connect:
    - name: connect-a
      url: ${connect.url}
      auth: { type: basic, username: bot, passwordEnv: CONNECT_PASSWORD }
`,
    });
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    const jobs = await ports.flink!.listJobs();
    expect(jobs.map((j) => `${j.name}@${j.source}`)).toEqual(["events-ingest@flink-a"]);
    expect(await ports.connect!.listConnectors()).toEqual([]);
    expect(flink.seen.length).toBeGreaterThan(0);
    expect(connect.seen.length).toBeGreaterThan(0);
  });

  it("reaches a Flink source that requires a client certificate (mutual TLS) with its own CA", async () => {
    const pki = makePki(dir);
    const gate = await startGate({
      upstream: lakehouse.urls.flink,
      check: (req) => (req.socket as import("node:tls").TLSSocket).authorized === true,
      tls: { key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert },
    });
    gates.push(gate);
    const files: Record<string, string> = {
      "/tls/client.crt": pki.clientCert,
      "/tls/client.key": pki.clientKey,
      "/tls/ca.crt": pki.caCert,
    };
    const yaml = (withCert: boolean) => `sources:
  flink:
    - name: flink-mtls
      url: ${gate.url}
      tls: { ${withCert ? "certFile: /tls/client.crt, keyFile: /tls/client.key, " : ""}caFile: /tls/ca.crt }
`;
    const readFile = (p: string) => files[p] ?? readFileSync(p, "utf8");
    const ports = createEvidencePorts(loadConfig({ BOT_CONFIG: yaml(true) }, { readFile }), {
      timeoutMs: 5000,
    });
    const jobs = await ports.flink!.listJobs();
    expect(jobs.map((j) => j.source)).toEqual(["flink-mtls"]);

    // Without the client certificate the server ends the handshake: the source is unreachable.
    const without = createEvidencePorts(loadConfig({ BOT_CONFIG: yaml(false) }, { readFile }), {
      timeoutMs: 5000,
    });
    await expect(without.flink!.listJobs()).rejects.toThrow();
  });
});

/** A CA, a server certificate for 127.0.0.1 and a client certificate, made for this run only. */
function makePki(root: string) {
  const d = mkdtempSync(path.join(root, "pki-"));
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: d, stdio: "pipe" });
  run(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "1",
    "-subj",
    "/CN=test-ca",
  );
  writeFileSync(path.join(d, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  run(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    "/CN=127.0.0.1",
  );
  run(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.crt",
    "-days",
    "1",
    "-extfile",
    "server.ext",
  );
  run(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "client.key",
    "-out",
    "client.csr",
    "-subj",
    "/CN=iceberg-bot",
  );
  run(
    "x509",
    "-req",
    "-in",
    "client.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "client.crt",
    "-days",
    "1",
  );
  const read = (f: string) => readFileSync(path.join(d, f), "utf8");
  return {
    caCert: read("ca.crt"),
    serverKey: read("server.key"),
    serverCert: read("server.crt"),
    clientKey: read("client.key"),
    clientCert: read("client.crt"),
  };
}
