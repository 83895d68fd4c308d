// `iceberg-bot discover` against the Kubernetes API stand-in: the bot's own view of the Flink
// Kubernetes Operator's clusters through a kubeconfig, and exit codes a script can branch on when
// the RBAC refuses some or all namespaces.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RBAC_NAMESPACE_MANIFEST } from "../../../src/adapters/evidence/kubernetes/client.js";
import { runCli } from "../../../src/cli/run-cli.js";
import type { KubernetesApiStandIn } from "../../../src/sim/servers/kubernetes-api.js";
import {
  JOB_A,
  kubeconfigText,
  rbacFor,
  SA_TOKEN,
  startPlatformStandIn,
} from "../../support/kubernetes-platform.js";

let server: KubernetesApiStandIn;
let dir: string;

beforeAll(async () => {
  server = await startPlatformStandIn({ rbac: rbacFor(RBAC_NAMESPACE_MANIFEST) });
  dir = mkdtempSync(join(tmpdir(), "discover-cli-"));
  writeFileSync(join(dir, "kubeconfig"), kubeconfigText(server));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function discover(namespaces: string[], ...flags: string[]) {
  const config = join(dir, `bot-${namespaces.join("-")}.yaml`);
  writeFileSync(
    config,
    `kubernetes:\n  namespaces: [${namespaces.join(", ")}]\n  kubeconfig: ${join(dir, "kubeconfig")}\n`,
  );
  let stdout = "";
  let stderr = "";
  const code = await runCli(["discover", "--config", config, ...flags], {
    env: {},
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stdout, stderr };
}

describe("iceberg-bot discover", () => {
  it("lists each JobManager with its jobs, pending ones named as such, and exits 0", async () => {
    const { code, stdout, stderr } = await discover(["flink"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.split("\n")).toEqual([
      "flink/events-ingest  application  http://events-ingest-rest.flink.svc:8082  STABLE",
      `  FlinkDeployment/events-ingest  events-ingest  ${JOB_A}  RUNNING`,
      "flink/orders-ingest  application  http://orders-ingest-rest.flink.svc:8081  DEPLOYED",
      "  FlinkDeployment/orders-ingest  -  pending (no job id yet)  RECONCILING",
      "flink/shared-session  session  http://shared-session-rest.flink.svc:8081  STABLE",
      "  FlinkSessionJob/clicks-ingest  clicks-ingest  a1b2c3d4e5f60718293a4b5c6d7e8f90  RUNNING",
      "  FlinkSessionJob/payments-ingest  -  pending (no job id yet)  -",
      "",
    ]);
    const json = await discover(["flink"], "--format", "json");
    expect(JSON.parse(json.stdout).sources.map((s: { name: string }) => s.name)).toEqual([
      "flink/events-ingest",
      "flink/orders-ingest",
      "flink/shared-session",
    ]);
  });

  it("exits 1 naming the namespace the RBAC refuses and the manifest that grants it", async () => {
    const { code, stdout, stderr } = await discover(["flink", "payments"]);
    expect(code).toBe(1);
    expect(stdout).toContain("flink/events-ingest");
    expect(stderr).toMatch(
      /^error: Kubernetes API denied .* "list" on flink\w+\.flink\.apache\.org in namespace "payments"/m,
    );
    expect(stderr).toContain(`hint: Apply ${RBAC_NAMESPACE_MANIFEST} in namespace "payments"`);
    expect(stderr).not.toContain(SA_TOKEN);
  });

  it("exits 2 when every namespace is refused, and when there is nothing to discover", async () => {
    const refused = await discover(["payments"]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^error: Kubernetes API denied .* in namespace "payments" \(HTTP 403\)/m);
    expect(refused.stderr).toContain(`hint: Apply ${RBAC_NAMESPACE_MANIFEST}`);

    const config = join(dir, "empty.yaml");
    writeFileSync(config, "defaults: {}\n");
    let stderr = "";
    const code = await runCli(["discover", "--config", config], {
      env: {},
      stdout: { write: () => true },
      stderr: { write: (chunk: string) => (stderr += chunk) },
    });
    expect(code).toBe(2);
    expect(stderr).toContain("BOT_CONFIG has no kubernetes section");
  });

  it("exits 3 when the API server does not answer", async () => {
    const closed = await startPlatformStandIn({ rbac: [] });
    const kubeconfig = kubeconfigText(closed);
    await closed.close();
    const config = join(dir, "closed.yaml");
    writeFileSync(join(dir, "closed-kubeconfig"), kubeconfig);
    writeFileSync(
      config,
      `kubernetes:\n  namespaces: [flink]\n  kubeconfig: ${join(dir, "closed-kubeconfig")}\n`,
    );
    let stderr = "";
    const code = await runCli(["discover", "--config", config], {
      env: {},
      stdout: { write: () => true },
      stderr: { write: (chunk: string) => (stderr += chunk) },
    });
    expect(stderr).toMatch(
      /^error: Kubernetes API is unreachable at https:\/\/127\.0\.0\.1:\d+ \(list flink\w+ in namespace flink\) \(ECONNREFUSED\)/m,
    );
    expect(code).toBe(3);
  });
});
