// Discovery against an API server that lies (or an impersonated one, TLS verification off): names
// that steer the JobManager URL to a port of its choosing, items claiming another namespace,
// pages that ignore `limit` and never end, statuses that echo the bot's own token, and hundreds
// of deployments at once. Each runs over real loopback servers: a hostile API server, and an
// attacker port that counts what reaches it (requests, Authorization headers, requests at once).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { DEFAULT_MAX_ITEMS, MAX_LIST_BYTES } from "../../../src/adapters/evidence/kubernetes/client.js";
import type { KubernetesConnection } from "../../../src/adapters/evidence/kubernetes/credentials.js";
import { FlinkDiscovery } from "../../../src/adapters/evidence/kubernetes/discovery.js";
import { runDiscoverCommand } from "../../../src/cli/commands/discover-command.js";
import { type Config, loadConfig } from "../../../src/config.js";
import { ErrorCode } from "../../../src/errors.js";
import { type Bot, startBot } from "../../../src/main.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import { application } from "../../support/kubernetes-platform.js";
import { REDIS_URL } from "../../support/redis.js";

const K8S_TOKEN = "k8s-sa-token-9d41f7c2b8e6";
const JM_TOKEN = "jm-token-shared-5e2a9c";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return (server.address() as AddressInfo).port;
}

/** A port that answers like a JobManager (no jobs) and counts what reaches it. */
async function attackerPort(delayMs = 0) {
  const seen = { requests: 0, authorizations: [] as (string | undefined)[], inFlight: 0, maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    seen.requests++;
    seen.authorizations.push(req.headers.authorization);
    seen.inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    const answer = () => {
      seen.inFlight--;
      res.writeHead(200, { "content-type": "application/json" }).end('{"jobs":[]}');
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  return { seen, port: await listen(server) };
}

type Handler = (
  path: string,
  query: URLSearchParams,
  authorization: string | undefined,
) => { status: number; body: unknown };

/** A plain-http API server answering lists as `handler` says, counting pages and bytes served. */
async function hostileApi(handler: Handler) {
  const served = { requests: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://api.invalid");
    served.requests++;
    const { status, body } = handler(url.pathname, url.searchParams, req.headers.authorization);
    const text = JSON.stringify(body);
    served.bytes += Buffer.byteLength(text);
    res.writeHead(status, { "content-type": "application/json" }).end(text);
  });
  const port = await listen(server);
  return { served, url: `http://127.0.0.1:${port}` };
}

function deployment(namespace: string, name: string, conf: Record<string, string> = {}, extra = {}) {
  const spec = structuredClone(application.get("basic-example")?.spec) as {
    flinkConfiguration: Record<string, string>;
  };
  Object.assign(spec.flinkConfiguration, conf);
  return {
    apiVersion: "flink.apache.org/v1beta1",
    kind: "FlinkDeployment",
    metadata: { name, namespace },
    spec,
    ...extra,
  };
}

const list = (items: unknown[], next?: string) => ({
  kind: "FlinkDeploymentList",
  apiVersion: "flink.apache.org/v1beta1",
  metadata: next ? { continue: next } : {},
  items,
});

/** Answers each namespace's flinkdeployments with `items`, and no session jobs. */
function listing(items: (namespace: string) => unknown[]): Handler {
  return (path) => {
    const namespace = /\/namespaces\/([^/]+)\//.exec(path)?.[1] ?? "";
    return { status: 200, body: list(path.endsWith("/flinkdeployments") ? items(namespace) : []) };
  };
}

function connectionTo(url: string): KubernetesConnection {
  return { server: new URL(url), token: () => K8S_TOKEN, identity: "a test token" };
}

function configWith(kubernetes: Record<string, unknown>, env: Record<string, string> = {}): Config {
  return loadConfig(
    {
      FLINK_JM_TOKEN: JM_TOKEN,
      BOT_CONFIG: stringify({ kubernetes: { namespaces: ["flink"], ...kubernetes } }),
      ...env,
    },
    { readFile: (path) => (path.endsWith("ca.crt") ? "CA" : "") },
  );
}

const bearerFor = (namespaces: string[]) => ({
  flinkAccess: [{ namespaces, auth: { type: "bearer", tokenEnv: "FLINK_JM_TOKEN" } }],
});

/** Discovery against `api`, and the Flink port that reads what it finds. */
function discoveryOf(config: Config, api: string, overrides: Parameters<typeof createEvidencePorts>[1] = {}) {
  const settings = config.bot.kubernetes;
  if (!settings) throw new Error("a kubernetes section");
  const discovery = new FlinkDiscovery({ settings, connection: connectionTo(api) });
  closers.push(() => discovery.stop());
  const ports = createEvidencePorts(config, {
    flinkProviders: [discovery.provider(config.discoveredFlink)],
    timeoutMs: 5000,
    ...overrides,
  });
  if (!ports.flink) throw new Error("a Flink port");
  return { discovery, flink: ports.flink };
}

describe("discovery facing a hostile API server", () => {
  it("never sends a JobManager's credential where a deployment's name or claimed namespace points", async () => {
    const attacker = await attackerPort();
    const steering = [
      `a@127.0.0.1:${attacker.port}/#`,
      "{namespace}",
      "b/../../..",
      `x.127.0.0.1:${attacker.port}#`,
    ];
    const api = await hostileApi(
      listing(() => [
        ...steering.map((name) => deployment("flink", name)),
        // Claims a namespace other than the one listed, to take that namespace's credential.
        deployment("other", "stolen", { "rest.port": String(attacker.port) }),
      ]),
    );
    const config = configWith(bearerFor(["flink", "other"]));
    const { discovery, flink } = discoveryOf(config, api.url);
    const snapshot = await discovery.refresh();
    await flink.listJobs().catch(() => []);

    expect(attacker.seen.requests).toBe(0);
    expect(snapshot.sources).toEqual([]);
    expect(snapshot.skipped.map((s) => s.reason)).toEqual([
      ...steering.map(() => "metadata.name: a Kubernetes name (RFC 1123 label: a-z, 0-9, '-', up to 63)"),
      "listed in namespace flink but names namespace other",
    ]);
  });

  it("gives a namespace's credential only to its own JobManagers", async () => {
    const attacker = await attackerPort();
    const owner = await attackerPort();
    const api = await hostileApi(
      listing((namespace) => [
        deployment(namespace, namespace === "flink" ? "orders" : "mine", {
          "rest.port": String(namespace === "flink" ? owner.port : attacker.port),
        }),
      ]),
    );
    // Anyone who may create a FlinkDeployment in team-b points it at their own pod.
    const config = configWith({
      namespaces: ["flink", "team-b"],
      restUrlTemplate: "http://127.0.0.1:{port}",
      ...bearerFor(["flink"]),
    });
    const { discovery, flink } = discoveryOf(config, api.url);
    await discovery.refresh();
    await flink.listJobs();
    expect(owner.seen.authorizations).toEqual([`Bearer ${JM_TOKEN}`]);
    expect(attacker.seen.requests).toBe(1);
    expect(attacker.seen.authorizations).toEqual([undefined]);
  });

  it("calls a JobManager over https whenever TLS is configured for it, whatever its deployment says", async () => {
    // TLS configured for team-b: its deployment's `security.ssl.rest.enabled: "false"` does not
    // bring the bot down to http.
    const tls = configWith({
      namespaces: ["team-b"],
      flinkAccess: [
        {
          namespaces: ["team-b"],
          auth: { type: "bearer", tokenEnv: "FLINK_JM_TOKEN" },
          tls: { caFile: "/tls/ca.crt" },
        },
      ],
    });
    const plain = await hostileApi(
      listing(() => [deployment("team-b", "mine", { "security.ssl.rest.enabled": "false" })]),
    );
    const found = discoveryOf(tls, plain.url);
    const sources = (await found.discovery.refresh()).sources;
    expect(sources.map((s) => s.restUrl)).toEqual(["https://mine-rest.team-b.svc:8081"]);
  });

  it("stops a listing at kubernetes.maxItems when the server ignores limit", async () => {
    // 1000 items a page whatever the limit, with a continue token for 100 pages.
    const page = Array.from({ length: 1000 }, (_, i) => deployment("flink", `job-${i}`));
    let pages = 0;
    const manyItems = await hostileApi((path) => {
      if (!path.endsWith("/flinkdeployments")) return { status: 200, body: list([]) };
      pages++;
      return { status: 200, body: list(page, pages < 100 ? `page-${pages}` : undefined) };
    });
    const config = configWith({});
    const byItems = await discoveryOf(config, manyItems.url).discovery.refresh();
    expect(byItems.errors[0]?.error.code).toBe(ErrorCode.SourceTooLarge);
    expect(byItems.errors[0]?.error.message).toContain(`more than ${DEFAULT_MAX_ITEMS} items`);
    expect(pages).toBe(DEFAULT_MAX_ITEMS / 1000 + 1);
  });

  it("stops a listing at its byte bound when the server ignores limit and sends large items", async () => {
    const config = configWith({});
    // Four items of 1 MiB a page, for 40 pages (160 MiB).
    const padding = "x".repeat(1024 * 1024);
    const big = Array.from({ length: 4 }, (_, i) =>
      deployment("flink", `big-${i}`, {}, { status: { error: padding } }),
    );
    let bigPages = 0;
    const manyBytes = await hostileApi((path) => {
      if (!path.endsWith("/flinkdeployments")) return { status: 200, body: list([]) };
      bigPages++;
      return { status: 200, body: list(big, bigPages < 40 ? `page-${bigPages}` : undefined) };
    });
    const byBytes = await discoveryOf(config, manyBytes.url).discovery.refresh();
    expect(byBytes.errors[0]?.error.message).toContain(`more than ${MAX_LIST_BYTES} bytes`);
    expect(bigPages).toBeLessThan(20);
    expect(manyBytes.served.bytes).toBeLessThan(MAX_LIST_BYTES + 8 * 1024 * 1024);
  });

  it("calls a few JobManagers at a time, and lets go of the clients of deployments that are gone", async () => {
    const attacker = await attackerPort(5);
    let count = 300;
    const api = await hostileApi(
      listing(() =>
        Array.from({ length: count }, (_, i) =>
          deployment("flink", `jm-${i}`, { "rest.port": String(attacker.port) }),
        ),
      ),
    );
    const config = configWith({ restUrlTemplate: "http://127.0.0.1:{port}" });
    const kept: { clients: number; tlsPools: number }[] = [];
    // No connection cap of its own: only the bound in question limits how many go at once.
    const dispatcher = new Agent({ connections: null });
    closers.push(() => dispatcher.close());
    const { discovery, flink } = discoveryOf(config, api.url, {
      dispatcher,
      onFlinkClients: (k) => kept.push(k),
    });
    await discovery.refresh();
    await flink.listJobs();
    expect(attacker.seen.requests).toBe(300);
    expect(attacker.seen.maxInFlight).toBeLessThanOrEqual(
      config.bot.kubernetes?.maxConcurrentJobManagers ?? 0,
    );
    expect(kept.at(-1)).toEqual({ clients: 300, tlsPools: 0 });

    count = 1;
    await discovery.refresh();
    await flink.listJobs();
    expect(kept.at(-1)).toEqual({ clients: 1, tlsPools: 0 });
  });

  it("never prints the Kubernetes token the server echoes, raw or in base64", async () => {
    const base64 = Buffer.from(`Bearer ${K8S_TOKEN}`).toString("base64");
    const api = await hostileApi((path, _query, authorization) => {
      const echoed = `you sent ${authorization} (${Buffer.from(String(authorization)).toString("base64")})`;
      // team-b refuses, echoing the token; flink lists a deployment whose status echoes it.
      if (path.includes("/namespaces/team-b/"))
        return { status: 403, body: { kind: "Status", status: "Failure", message: echoed, code: 403 } };
      if (path.endsWith("/flinksessionjobs")) return { status: 200, body: list([]) };
      return {
        status: 200,
        body: list([
          deployment("flink", "orders", {}, { status: { error: echoed, lifecycleState: "FAILED" } }),
        ]),
      };
    });
    const kubeconfig = stringify({
      "current-context": "c",
      clusters: [{ name: "k", cluster: { server: api.url } }],
      contexts: [{ name: "c", context: { cluster: "k", user: "u" } }],
      users: [{ name: "u", user: { token: K8S_TOKEN } }],
    });
    const out: string[] = [];
    const io = {
      env: {
        BOT_CONFIG: stringify({
          kubernetes: { namespaces: ["flink", "team-b"], kubeconfig: "/kube/config" },
        }),
      },
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => out.push(t) },
      readFile: (path: string) => (path === "/kube/config" ? kubeconfig : ""),
    };
    for (const format of ["json", "text"]) {
      await runDiscoverCommand({
        command: "discover",
        args: ["--format", format],
        io: io as never,
        onConfig: () => {},
      }).catch((error: Error) => out.push(error.message));
    }
    const printed = out.join("");
    // The 403's message in JSON and in text, and the deployment's status error in JSON.
    expect(printed.split("you sent Bearer [redacted] ([redacted])").length - 1).toBe(3);
    expect(printed).not.toContain(K8S_TOKEN);
    expect(printed).not.toContain(base64);
  });
});

describe("where discovery runs", () => {
  it("a receiver (serve) never builds it: it starts in a pod without the token mount and asks the API nothing", async () => {
    const api = await hostileApi(listing(() => []));
    const slack = await startSlackStandIn();
    closers.push(() => slack.close());
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-stand-in",
      SLACK_SIGNING_SECRET: "signing-secret-discovery-serve",
      SLACK_API_URL: slack.apiUrl,
      REDIS_URL,
      PORT: "0",
      LOG_LEVEL: "silent",
      // The shipped manifests mount the token only in the worker pods.
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: new URL(api.url).port,
      BOT_CONFIG: stringify({ kubernetes: { namespaces: ["flink"] } }),
    });
    const bot: Bot = await startBot(config, {
      role: "serve",
      port: 0,
      queuePrefix: `{discovery-serve-${process.pid}}`,
    });
    closers.push(() => bot.stop());
    expect(bot.port).toBeGreaterThan(0);
    expect(api.served.requests).toBe(0);
  });
  /** An API server with nothing to list, counting paths; a kubeconfig with its token; a bot's config. */
  async function reachableApi(label: string) {
    // One listing is one request per resource kind for the one namespace.
    const seen: string[] = [];
    let listed: () => void = () => {};
    const firstListing = new Promise<void>((resolve) => {
      listed = resolve;
    });
    const api = await hostileApi((path) => {
      seen.push(path);
      if (seen.length === 2) listed();
      return listing(() => [])(path, new URLSearchParams(), undefined);
    });
    const slack = await startSlackStandIn();
    closers.push(() => slack.close());
    const dir = mkdtempSync(join(tmpdir(), `discovery-${label}-`));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      stringify({
        "current-context": "c",
        clusters: [{ name: "s", cluster: { server: api.url } }],
        contexts: [{ name: "c", context: { cluster: "s", user: "u" } }],
        users: [{ name: "u", user: { token: K8S_TOKEN } }],
      }),
    );
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-stand-in",
      SLACK_SIGNING_SECRET: `signing-secret-discovery-${label}`,
      SLACK_API_URL: slack.apiUrl,
      REDIS_URL,
      PORT: "0",
      LOG_LEVEL: "silent",
      BOT_CONFIG: stringify({ kubernetes: { namespaces: ["flink"], kubeconfig } }),
    });
    const once = (list: string[]) => {
      expect(list.filter((p) => p.endsWith("/namespaces/flink/flinkdeployments"))).toHaveLength(1);
      expect(list.filter((p) => p.endsWith("/namespaces/flink/flinksessionjobs"))).toHaveLength(1);
      expect(list).toHaveLength(2);
    };
    return { seen, firstListing, config, once };
  }

  it("serve asks the API nothing even with credentials at hand: only the worker beside it lists", async () => {
    const { seen, firstListing, config, once } = await reachableApi("serve");
    const queuePrefix = `{discovery-serve-worker-${process.pid}}`;
    const receiver: Bot = await startBot(config, { role: "serve", port: 0, queuePrefix });
    closers.push(() => receiver.stop());
    // The receiver would have sent its listing as it started, before the worker does.
    const worker: Bot = await startBot(config, { role: "worker", queuePrefix });
    closers.push(() => worker.stop());
    await firstListing;
    await worker.stop();
    await receiver.stop();
    once(seen);
  });

  it("start lists once, in its worker child only: the receiver beside it asks the API nothing", async () => {
    const { seen, firstListing, config, once } = await reachableApi("start");
    const events: string[] = [];
    const bot: Bot = await startBot(config, {
      role: "start",
      port: 0,
      queuePrefix: `{discovery-start-${process.pid}}`,
      workerProcess: { onEvent: (event) => events.push(event.kind) },
    });
    let stopped = false;
    closers.push(async () => {
      if (!stopped) await bot.stop();
    });
    expect(bot.workers).toBeUndefined();
    // The parent would list as it starts, before its child is even forked: by the time the
    // child's listing arrives, a second one from the parent would have arrived too.
    await firstListing;
    await bot.stop();
    stopped = true;
    expect(events).toContain("ready");
    once(seen);
  });
});
