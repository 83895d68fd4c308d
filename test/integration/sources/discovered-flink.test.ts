// Flink clusters the Flink Kubernetes Operator runs, as Flink sources of an investigation: the
// Kubernetes API stand-in lists a FlinkDeployment whose JobManager REST API (mapped to loopback
// through restUrlTemplate and its rest.port) is a simulated Flink cluster behind a bearer token,
// the one `kubernetes.flinkAccess` names for its namespace. The writer is found there and named namespace/deployment;
// once the deployment is gone from the API, the next listing drops the source.

import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { RBAC_NAMESPACE_MANIFEST } from "../../../src/adapters/evidence/kubernetes/client.js";
import { flinkDiscoveryPart } from "../../../src/bot/flink-discovery.js";
import { loadConfig, secretValues } from "../../../src/config.js";
import { diagnose } from "../../../src/core/diagnosis/diagnose.js";
import { investigate } from "../../../src/services/investigate/investigate.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import type { KubernetesApiStandIn } from "../../../src/sim/servers/kubernetes-api.js";
import {
  application,
  fromExample,
  kubeconfigText,
  rbacFor,
  running,
  startPlatformStandIn,
} from "../../support/kubernetes-platform.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

const ORDERS_JOB = "9e3b7a1c5d2f4e6a8b0c1d2e3f4a5b6c";
const FLINK_TOKEN = "jm-token-3c1e7a9b";

let lakehouse: Lakehouse;
let api: KubernetesApiStandIn;
let gate: http.Server;
const seenAuth: (string | undefined)[] = [];

/** The JobManager's REST API behind a bearer token, forwarding to the simulated flink-eu. */
async function startBearerGate(upstream: string): Promise<http.Server> {
  const server = http.createServer(async (req, res) => {
    seenAuth.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${FLINK_TOKEN}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"errors":["unauthorized"]}');
      return;
    }
    const answer = await request(`${upstream}${req.url}`);
    res.writeHead(answer.statusCode, { "content-type": "application/json" });
    res.end(await answer.body.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

beforeAll(async () => {
  lakehouse = await startLakehouse({ scenario: "multi-cluster-platform" });
  gate = await startBearerGate(lakehouse.named.flink["flink-eu"] as string);
  const deployment = fromExample(application.get("basic-example"), "flink", "orders-ingest", {
    ...running(ORDERS_JOB, "orders-ingest"),
  });
  // The REST port the template maps to loopback: the gate's.
  (deployment.spec as { flinkConfiguration: Record<string, string> }).flinkConfiguration["rest.port"] =
    String((gate.address() as AddressInfo).port);
  api = await startPlatformStandIn({ rbac: rbacFor(RBAC_NAMESPACE_MANIFEST), resources: [deployment] });
});
afterAll(async () => {
  await api?.close();
  await new Promise((resolve) => gate?.close(resolve));
  await lakehouse?.close();
});

/** The platform's BOT_CONFIG without flink-eu as a named source: it is only found through discovery. */
function discoveryConfig() {
  const env = lakehouse.env();
  const bot = parse(env.BOT_CONFIG as string) as { sources: { flink: { name: string }[] } };
  bot.sources.flink = bot.sources.flink.filter((s) => s.name !== "flink-eu");
  const kubernetes = {
    namespaces: ["flink"],
    kubeconfig: "/var/run/bot/kubeconfig",
    restUrlTemplate: "http://127.0.0.1:{port}",
    flinkAccess: [{ namespaces: ["flink"], auth: { type: "bearer", tokenEnv: "FLINK_JM_TOKEN" } }],
  };
  return loadConfig({ ...env, FLINK_JM_TOKEN: FLINK_TOKEN, BOT_CONFIG: stringify({ ...bot, kubernetes }) });
}

const quiet = { info: () => {}, warn: () => {} };

describe("Flink clusters discovered in Kubernetes as Flink sources", () => {
  it("finds the writer on the discovered JobManager, names it namespace/deployment, and drops it once deleted", async () => {
    const config = discoveryConfig();
    expect(config.discoveredFlink?.[0]?.auth).toEqual({ kind: "bearer", token: FLINK_TOKEN });
    expect(secretValues(config)).toContain(FLINK_TOKEN);
    const part = flinkDiscoveryPart(config, quiet, {
      readFile: (path) =>
        path === "/var/run/bot/kubeconfig" ? kubeconfigText(api) : readFileSync(path, "utf8"),
    });
    if (!part) throw new Error("a kubernetes section makes a discovery part");
    part.start?.();
    try {
      const ports = createEvidencePorts(config, { timeoutMs: 5000, flinkProviders: [part.provider] });
      const now = lakehouse.clock.now();
      const evidence = await investigate(ports, { table: "sales.orders", timeoutMs: 5000 }, () => now);
      expect(evidence.flink?.writer?.job).toMatchObject({
        name: "orders-ingest",
        jobId: ORDERS_JOB,
        source: "flink/orders-ingest",
      });
      expect(evidence.flink?.jobs.map((j) => `${j.name}@${j.source}`).sort()).toEqual([
        "audit-ingest@flink-us",
        "orders-ingest@flink/orders-ingest",
      ]);
      // Every request to the JobManager carried the token kubernetes.flinkAccess names for it.
      expect(seenAuth.length).toBeGreaterThan(0);
      expect(new Set(seenAuth)).toEqual(new Set([`Bearer ${FLINK_TOKEN}`]));

      const report = diagnose(evidence, now, { playbooks: PLAYBOOKS });
      expect(report.writer).toMatchObject({
        kind: "flink",
        name: "orders-ingest",
        cluster: "flink/orders-ingest",
      });
      expect(JSON.stringify(report.findings)).toContain("orders-ingest (9e3b…) on flink/orders-ingest");

      // The deployment is deleted: the next listing drops its JobManager from the sources.
      api.remove("FlinkDeployment", "flink", "orders-ingest");
      const snapshot = await part.discovery.refresh();
      expect(snapshot.sources).toEqual([]);
      expect(await part.provider.list()).toEqual([]);
      const after = await investigate(ports, { table: "sales.orders", timeoutMs: 5000 }, () => now);
      expect(after.flink?.jobs.map((j) => j.source)).toEqual(["flink-us"]);
      expect(after.flink?.writer?.job.source).not.toBe("flink/orders-ingest");
    } finally {
      await part.stop();
    }
  });
});
