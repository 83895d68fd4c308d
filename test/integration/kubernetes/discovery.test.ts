// Flink Kubernetes Operator discovery against the Kubernetes API stand-in, over TLS with the test
// cluster CA: the pod's service account (token and CA files) and kubeconfig users (token, client
// certificate), the shipped RBAC manifests evaluated as the API server evaluates them, pagination
// with `continue` (and an expired token), 401/403 as coded errors naming the fix, the mapping of
// application and session clusters, pending deployments, and the refresher as jobs come and go.
// Every resource the stand-in serves is checked against the operator's published CRDs.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  KubernetesClient,
  RBAC_CLUSTER_MANIFEST,
  RBAC_NAMESPACE_MANIFEST,
} from "../../../src/adapters/evidence/kubernetes/client.js";
import { kubeconfigConnection } from "../../../src/adapters/evidence/kubernetes/credentials.js";
import {
  type DiscoverySnapshot,
  FlinkDiscovery,
  type SourceChanges,
  toSourceSpecs,
} from "../../../src/adapters/evidence/kubernetes/discovery.js";
import { type KubernetesSettings, KubernetesSettingsSchema } from "../../../src/core/kubernetes-settings.js";
import { ErrorCode } from "../../../src/errors.js";
import type {
  KubernetesApiStandIn,
  RbacDocument,
  StandInResource,
} from "../../../src/sim/servers/kubernetes-api.js";
import { crdProblems } from "../../support/flink-crds.js";
import {
  application,
  BOT,
  fromExample,
  JOB_A,
  JOB_S1,
  kubeconfigText,
  platform,
  rbacFor,
  running,
  SA_TOKEN,
  STRANGER_TOKEN,
  session,
  startPlatformStandIn,
  tls,
} from "../../support/kubernetes-platform.js";

const standIns: KubernetesApiStandIn[] = [];
const discoveries: FlinkDiscovery[] = [];
const dirs: string[] = [];

async function standIn(options: {
  rbac: RbacDocument[];
  resources?: StandInResource[];
}): Promise<KubernetesApiStandIn> {
  const server = await startPlatformStandIn(options);
  standIns.push(server);
  return server;
}

/** The files the kubelet mounts for a service account. */
function serviceAccountDir(token = SA_TOKEN): string {
  const dir = mkdtempSync(join(tmpdir(), "k8s-sa-"));
  dirs.push(dir);
  writeFileSync(join(dir, "token"), `${token}\n`);
  writeFileSync(join(dir, "ca.crt"), tls("ca.crt"));
  writeFileSync(join(dir, "namespace"), "iceberg-bot");
  return dir;
}

/** BOT_CONFIG's defaults; a test may set what the schema would refuse (a refresh in milliseconds). */
function settings(overrides: Partial<KubernetesSettings> = {}): KubernetesSettings {
  return { ...KubernetesSettingsSchema.parse({ namespaces: ["flink"] }), ...overrides };
}

function inCluster(
  server: KubernetesApiStandIn,
  s: KubernetesSettings,
  saDir = serviceAccountDir(),
  extra = {},
) {
  const port = Number(new URL(server.url).port);
  const discovery = new FlinkDiscovery({
    settings: s,
    inCluster: { service: { host: "127.0.0.1", port }, serviceAccountDir: saDir },
    ...extra,
  });
  discoveries.push(discovery);
  return discovery;
}

/** Every FlinkDeployment/FlinkSessionJob the stand-in answered with, checked against the CRDs. */
function expectAnswersValidAgainstCrds(server: KubernetesApiStandIn): number {
  let checked = 0;
  for (const answer of server.answers) {
    if (answer.status !== 200) continue;
    const body = answer.body as { kind: string; items?: unknown[] };
    const objects = body.kind.endsWith("List") ? (body.items as { kind: string }[]) : [body];
    for (const object of objects) {
      expect(crdProblems(object), `${answer.path}: ${JSON.stringify(object).slice(0, 120)}`).toEqual([]);
      checked++;
    }
  }
  return checked;
}

afterEach(async () => {
  for (const d of discoveries.splice(0)) await d.stop();
  for (const s of standIns.splice(0)) await s.close();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("Flink Kubernetes Operator discovery", () => {
  it("lists application and session clusters with the in-cluster service account and the shipped Role", async () => {
    const server = await standIn({ rbac: rbacFor(RBAC_NAMESPACE_MANIFEST) });
    const snapshot = await inCluster(server, settings()).refresh();

    expect(snapshot.errors).toEqual([]);
    expect(snapshot.skipped).toEqual([]);
    expect(snapshot.sources).toEqual([
      {
        name: "flink/events-ingest",
        namespace: "flink",
        deployment: "events-ingest",
        restUrl: "http://events-ingest-rest.flink.svc:8082",
        mode: "application",
        lifecycleState: "STABLE",
        jobManagerStatus: "READY",
        jobs: [
          {
            resource: "FlinkDeployment/events-ingest",
            jobId: JOB_A,
            jobName: "events-ingest",
            state: "RUNNING",
            lifecycleState: "STABLE",
            pending: false,
          },
        ],
      },
      {
        name: "flink/orders-ingest",
        namespace: "flink",
        deployment: "orders-ingest",
        restUrl: "http://orders-ingest-rest.flink.svc:8081",
        mode: "application",
        lifecycleState: "DEPLOYED",
        jobManagerStatus: "DEPLOYING",
        // Just deployed: no job id yet, so pending rather than an error.
        jobs: [
          {
            resource: "FlinkDeployment/orders-ingest",
            jobId: undefined,
            jobName: undefined,
            state: "RECONCILING",
            lifecycleState: "DEPLOYED",
            pending: true,
          },
        ],
      },
      {
        name: "flink/shared-session",
        namespace: "flink",
        deployment: "shared-session",
        restUrl: "http://shared-session-rest.flink.svc:8081",
        mode: "session",
        lifecycleState: "STABLE",
        jobManagerStatus: "READY",
        jobs: [
          {
            resource: "FlinkSessionJob/clicks-ingest",
            jobId: JOB_S1,
            jobName: "clicks-ingest",
            state: "RUNNING",
            lifecycleState: "STABLE",
            pending: false,
          },
          // A session job the operator has not reconciled yet has no status at all.
          {
            resource: "FlinkSessionJob/payments-ingest",
            jobId: undefined,
            jobName: undefined,
            state: undefined,
            lifecycleState: undefined,
            pending: true,
          },
        ],
      },
    ]);
    // Two lists, each authenticated as the pod's service account.
    expect(server.answers.map((a) => [a.path, a.status, a.user])).toEqual(
      expect.arrayContaining([
        ["/apis/flink.apache.org/v1beta1/namespaces/flink/flinkdeployments", 200, BOT.name],
        ["/apis/flink.apache.org/v1beta1/namespaces/flink/flinksessionjobs", 200, BOT.name],
      ]),
    );
    expect(server.answers).toHaveLength(2);
    expect(expectAnswersValidAgainstCrds(server)).toBe(5);
    // The provider answers from the last listing without asking the API again; before any
    // listing it lists once.
    const discovery = discoveries.at(-1) as FlinkDiscovery;
    expect(await discovery.provider().list()).toEqual(toSourceSpecs(snapshot.sources));
    expect(server.answers).toHaveLength(2);
    const fresh = inCluster(server, settings());
    expect((await fresh.provider().list()).map((s) => s.name)).toHaveLength(3);
    expect(server.answers).toHaveLength(4);
    // As Flink sources: each JobManager's REST URL with the jobs its resources name.
    expect(toSourceSpecs(snapshot.sources)).toEqual([
      {
        name: "flink/events-ingest",
        url: "http://events-ingest-rest.flink.svc:8082",
        auth: { kind: "none" },
        origin: "discovered",
        jobs: [{ jobId: JOB_A, name: "events-ingest", state: "RUNNING" }],
      },
      {
        name: "flink/orders-ingest",
        url: "http://orders-ingest-rest.flink.svc:8081",
        auth: { kind: "none" },
        origin: "discovered",
        jobs: [{ state: "RECONCILING" }],
      },
      {
        name: "flink/shared-session",
        url: "http://shared-session-rest.flink.svc:8081",
        auth: { kind: "none" },
        origin: "discovered",
        jobs: [{ jobId: JOB_S1, name: "clicks-ingest", state: "RUNNING" }, {}],
      },
    ]);
  });

  it("re-reads a rotated service account token for every listing, and logs a problem once", async () => {
    const server = await standIn({ rbac: rbacFor(RBAC_NAMESPACE_MANIFEST) });
    const dir = serviceAccountDir();
    const logged: string[] = [];
    const log = {
      info: (_: Record<string, unknown>, message: string) => logged.push(`info ${message}`),
      warn: (_: Record<string, unknown>, message: string) => logged.push(`warn ${message}`),
    };
    const discovery = inCluster(server, settings(), dir, { log });
    expect((await discovery.refresh()).sources).toHaveLength(3);
    // The kubelet rotates the file; the new token (another account's here) is used at once.
    writeFileSync(join(dir, "token"), STRANGER_TOKEN);
    const denied = await discovery.refresh();
    expect(denied.errors.map((e) => e.error.code)).toEqual([ErrorCode.KubernetesForbidden]);
    expect(server.answers.at(-1)?.user).toBe("system:serviceaccount:other:default");
    // The last known sources of a namespace that failed to list are kept.
    expect(denied.sources).toHaveLength(3);
    await discovery.refresh();
    writeFileSync(join(dir, "token"), SA_TOKEN);
    expect((await discovery.refresh()).errors).toEqual([]);
    expect(logged.map((line) => line.replace(/ \(HTTP 403\).*/, ""))).toEqual([
      "info Flink sources discovered in Kubernetes changed",
      'warn Kubernetes API denied the service account of namespace iceberg-bot "list" on flinkdeployments.flink.apache.org in namespace "flink"',
      "info Kubernetes discovery lists namespace flink again",
    ]);
  });

  it("pages through lists with continue, and restarts a list whose continue token expired", async () => {
    const many: StandInResource[] = Array.from({ length: 7 }, (_, i) =>
      fromExample(
        application.get("basic-example"),
        "flink",
        `job-${i}`,
        running(`${i}`.padStart(32, "0"), `job-${i}`),
      ),
    );
    const server = await standIn({ rbac: rbacFor(RBAC_NAMESPACE_MANIFEST), resources: many });
    const discovery = inCluster(server, settings({ pageSize: 3 }));
    const first = await discovery.refresh();
    expect(first.sources.map((s) => s.deployment)).toEqual(many.map((r) => r.metadata.name));
    const deploymentPages = server.answers.filter((a) => a.path.endsWith("/flinkdeployments"));
    expect(deploymentPages.map((a) => [a.query.limit, a.query.continue !== undefined])).toEqual([
      ["3", false],
      ["3", true],
      ["3", true],
    ]);
    expect(deploymentPages.map((a) => (a.body as { items: unknown[] }).items.length)).toEqual([3, 3, 1]);
    expect(
      (deploymentPages[0]?.body as { metadata?: { remainingItemCount?: number } } | undefined)?.metadata
        ?.remainingItemCount,
    ).toBe(4);
    // 3 pages of deployments + 1 (empty) page of session jobs.
    expect(first.requests).toBe(4);

    // The API server compacts between two pages: the continue token answers 410, the list starts over.
    const saDir = serviceAccountDir();
    let calls = 0;
    const expiring = inCluster(server, settings({ pageSize: 3 }), saDir, {
      connection: {
        ...kubeconfigLike(server),
        token: () => {
          calls++;
          if (calls === 3) server.expireContinueTokens();
          return SA_TOKEN;
        },
      },
    });
    server.answers.length = 0;
    const again = await expiring.refresh();
    expect(server.answers.filter((a) => a.status === 410)).toHaveLength(1);
    expect(again.sources.map((s) => s.deployment)).toEqual(many.map((r) => r.metadata.name));
    expect(again.errors).toEqual([]);
    expect(expectAnswersValidAgainstCrds(server)).toBeGreaterThan(7);
  });

  it("authenticates with a kubeconfig: its current-context's client certificate, or another context's token", async () => {
    const rbac = [
      ...rbacFor(RBAC_NAMESPACE_MANIFEST),
      // jane (client certificate, group flink-readers) gets the same Role through her group.
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "readers", namespace: "flink" },
        roleRef: { kind: "Role", name: "iceberg-bot-flink-discovery" },
        subjects: [{ kind: "Group", name: "flink-readers" }],
      },
    ];
    const server = await standIn({ rbac });
    const dir = mkdtempSync(join(tmpdir(), "k8s-kubeconfig-"));
    dirs.push(dir);
    for (const f of ["ca.crt", "client.crt", "client.key"]) writeFileSync(join(dir, f), tls(f));
    writeFileSync(
      join(dir, "config"),
      [
        "apiVersion: v1",
        "kind: Config",
        "current-context: jane@test",
        "clusters:",
        "  - name: test",
        "    cluster:",
        `      server: ${server.url}`,
        "      certificate-authority: ca.crt",
        "  - name: test-inline-ca",
        "    cluster:",
        `      server: ${server.url}`,
        `      certificate-authority-data: ${Buffer.from(tls("ca.crt")).toString("base64")}`,
        "  - name: untrusted",
        "    cluster:",
        `      server: ${server.url}`,
        `      certificate-authority-data: ${Buffer.from(tls("other-ca.crt")).toString("base64")}`,
        "contexts:",
        "  - name: jane@test",
        "    context: { cluster: test, user: jane }",
        "  - name: bot@test",
        "    context: { cluster: test-inline-ca, user: bot }",
        "  - name: bot@untrusted",
        "    context: { cluster: untrusted, user: bot }",
        "users:",
        "  - name: jane",
        "    user:",
        "      client-certificate: client.crt",
        "      client-key: client.key",
        "  - name: bot",
        "    user:",
        `      token: ${SA_TOKEN}`,
        "",
      ].join("\n"),
    );
    const kubeconfig = join(dir, "config");

    const byCert = new FlinkDiscovery({ settings: settings({ kubeconfig }) });
    discoveries.push(byCert);
    const viaCert = await byCert.refresh();
    expect(viaCert.errors).toEqual([]);
    expect(viaCert.sources.map((s) => s.name)).toEqual([
      "flink/events-ingest",
      "flink/orders-ingest",
      "flink/shared-session",
    ]);
    expect(new Set(server.answers.map((a) => a.user))).toEqual(new Set(["jane"]));

    server.answers.length = 0;
    const byToken = new FlinkDiscovery({ settings: settings({ kubeconfig, context: "bot@test" }) });
    discoveries.push(byToken);
    expect((await byToken.refresh()).sources).toHaveLength(3);
    expect(new Set(server.answers.map((a) => a.user))).toEqual(new Set([BOT.name]));

    // A CA that did not sign the server's certificate: refused before any request is answered.
    server.answers.length = 0;
    const untrusted = new FlinkDiscovery({ settings: settings({ kubeconfig, context: "bot@untrusted" }) });
    discoveries.push(untrusted);
    const refused = await untrusted.refresh();
    expect(refused.errors[0]?.error.code).toBe(ErrorCode.SourceUnreachable);
    expect(refused.errors[0]?.error.message).toMatch(/certificate is not trusted/);
    expect(server.answers).toEqual([]);
    expectAnswersValidAgainstCrds(server);
  });

  it("names the missing verb, namespace and manifest on 403, and the credentials on 401, never the token", async () => {
    // The bot may list in "flink" only; a second Role in "payments" lacks list.
    const getOnly = rbacFor(RBAC_NAMESPACE_MANIFEST, "payments").map((d) =>
      d.kind === "Role" ? { ...d, rules: [{ ...d.rules?.[0], verbs: ["get"] }] } : d,
    ) as RbacDocument[];
    const server = await standIn({ rbac: [...rbacFor(RBAC_NAMESPACE_MANIFEST), ...getOnly] });
    const snapshot = await inCluster(
      server,
      settings({ namespaces: ["flink", "payments", "batch", "team-a", "team-b", "team-c"] }),
    ).refresh();

    expect(snapshot.sources.map((s) => s.name)).toEqual([
      "flink/events-ingest",
      "flink/orders-ingest",
      "flink/shared-session",
    ]);
    const errors = new Map(snapshot.errors.map((e) => [e.namespace, e.error]));
    expect([...errors.keys()].sort()).toEqual(["batch", "payments", "team-a", "team-b", "team-c"]);
    for (const [namespace, error] of errors) {
      expect(error.code).toBe(ErrorCode.KubernetesForbidden);
      expect(error.message).toMatch(
        new RegExp(
          `denied the service account of namespace iceberg-bot "list" on flink(deployments|sessionjobs)\\.flink\\.apache\\.org in namespace "${namespace}" \\(HTTP 403\\)`,
        ),
      );
      // What the API server said, as it says it.
      expect(error.message).toContain(`cannot list resource`);
      expect(error.hint).toBe(
        `Apply ${RBAC_NAMESPACE_MANIFEST} in namespace "${namespace}" (a Role with get and list on flinkdeployments and flinksessionjobs, bound to the bot's service account).`,
      );
      expect(error.details).toMatchObject({ verb: "list", namespace, group: "flink.apache.org" });
      expect(JSON.stringify({ m: error.message, h: error.hint, d: error.details })).not.toContain(SA_TOKEN);
    }
    // The Status object is the API server's.
    const forbidden = server.answers.find((a) => a.status === 403)?.body;
    expect(forbidden).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
    });

    // Every namespace at once needs the cluster-wide grant: a Role is not enough, the ClusterRole is.
    const all = await inCluster(server, settings({ namespaces: ["*"] })).refresh();
    expect(all.errors[0]?.error.message).toMatch(
      /"list" on flink\w+\.flink\.apache\.org across all namespaces/,
    );
    expect(all.errors[0]?.error.hint).toContain(RBAC_CLUSTER_MANIFEST);
    const cluster = await standIn({ rbac: rbacFor(RBAC_CLUSTER_MANIFEST) });
    const everywhere = await inCluster(cluster, settings({ namespaces: ["*"] })).refresh();
    expect(everywhere.errors).toEqual([]);
    expect(everywhere.sources).toHaveLength(3);
    expect(cluster.answers.map((a) => a.path).sort()).toEqual([
      "/apis/flink.apache.org/v1beta1/flinkdeployments",
      "/apis/flink.apache.org/v1beta1/flinksessionjobs",
    ]);

    // An unknown token is 401: the credentials, not the RBAC.
    const unknown = await inCluster(server, settings(), serviceAccountDir("not-a-token-at-all")).refresh();
    expect(unknown.errors[0]?.error.code).toBe(ErrorCode.AuthFailed);
    expect(unknown.errors[0]?.error.message).toMatch(
      /refused the credentials of the service account of namespace iceberg-bot \(HTTP 401/,
    );
    expect(unknown.errors[0]?.error.message).not.toContain("not-a-token-at-all");
    expectAnswersValidAgainstCrds(server);
  });

  it("gets one resource by name, and answers undefined for one that does not exist", async () => {
    const server = await standIn({ rbac: rbacFor(RBAC_NAMESPACE_MANIFEST) });
    const client = new KubernetesClient(kubeconfigLike(server));
    try {
      const job = (await client.get("flinksessionjobs", "flink", "clicks-ingest")) as {
        spec: { deploymentName: string };
      };
      expect(job.spec.deploymentName).toBe("shared-session");
      expect(await client.get("flinkdeployments", "flink", "gone")).toBeUndefined();
      await expect(client.get("flinkdeployments", "payments", "x")).rejects.toMatchObject({
        code: ErrorCode.KubernetesForbidden,
        message: expect.stringContaining(
          `"get" on flinkdeployments.flink.apache.org in namespace "payments"`,
        ),
      });
    } finally {
      await client.close();
    }
    expect(expectAnswersValidAgainstCrds(server)).toBe(1);
  });

  it("keeps the sources current on its interval: jobs come, get their id, and go", async () => {
    const server = await standIn({ rbac: rbacFor(RBAC_NAMESPACE_MANIFEST) });
    const changes: SourceChanges[] = [];
    const refreshes: DiscoverySnapshot[] = [];
    let wake: (() => void) | undefined;
    const discovery = inCluster(server, settings({ refreshSeconds: 0.02 }), serviceAccountDir(), {
      onChange: (c: SourceChanges) => changes.push(c),
      onRefresh: (s: DiscoverySnapshot) => {
        refreshes.push(s);
        wake?.();
      },
    });
    const nextRefresh = () => new Promise<void>((resolve) => (wake = resolve));
    const first = await discovery.start();
    expect(first.sources).toHaveLength(3);
    expect(changes[0]?.added.map((s) => s.name)).toHaveLength(3);

    // The operator reports orders-ingest's job id; a new deployment appears; the session cluster goes.
    server.put(
      fromExample(
        application.get("basic-example"),
        "flink",
        "orders-ingest",
        running(JOB_S1.replace("a", "b"), "orders-ingest"),
      ),
    );
    server.put(fromExample(application.get("basic-example"), "flink", "audit-ingest"));
    server.remove("FlinkDeployment", "flink", "shared-session");
    server.remove("FlinkSessionJob", "flink", "clicks-ingest");
    server.remove("FlinkSessionJob", "flink", "payments-ingest");
    const before = refreshes.length;
    while (refreshes.length < before + 2) await nextRefresh();

    const last = changes.at(-1) as SourceChanges;
    expect(last.added.map((s) => s.name)).toEqual(["flink/audit-ingest"]);
    expect(last.removed.map((s) => s.name)).toEqual(["flink/shared-session"]);
    expect(last.changed.map((s) => [s.name, s.jobs[0]?.pending, s.jobs[0]?.state])).toEqual([
      ["flink/orders-ingest", false, "RUNNING"],
    ]);
    // A deployment the operator has not touched yet (no status) is pending, not skipped.
    expect(discovery.sources().find((s) => s.deployment === "audit-ingest")?.jobs[0]?.pending).toBe(true);
    await discovery.stop();
    const stoppedAt = refreshes.length;
    expect(server.answers.length).toBeGreaterThanOrEqual(2 * stoppedAt);
    expectAnswersValidAgainstCrds(server);
  });

  it("skips a session job without the deploymentName it needs, naming it, and keeps the rest", async () => {
    const broken = fromExample(session.get("basic-session-job-example"), "flink", "orphan");
    (broken.spec as Record<string, unknown>).deploymentName = undefined;
    const server = await standIn({
      rbac: rbacFor(RBAC_NAMESPACE_MANIFEST),
      resources: [...platform(), broken],
    });
    const snapshot = await inCluster(server, settings()).refresh();
    expect(snapshot.skipped).toEqual([
      { resource: "FlinkSessionJob/flink/orphan", reason: expect.stringContaining("spec.deploymentName") },
    ]);
    expect(snapshot.sources).toHaveLength(3);
  });
});

describe("the CRD check itself", () => {
  it("refuses what the operator's CRD refuses: an unknown state, a misspelt field, a wrong type", () => {
    const good = {
      apiVersion: "flink.apache.org/v1beta1",
      kind: "FlinkDeployment",
      metadata: { name: "a", namespace: "flink", uid: "u", resourceVersion: "1" },
      spec: structuredClone(application.get("basic-example")?.spec),
      status: running(JOB_A, "a"),
    };
    expect(crdProblems(good)).toEqual([]);
    const badState = structuredClone(good);
    badState.status.jobStatus.state = "HAPPY";
    expect(crdProblems(badState).join()).toMatch(
      /\/status\/jobStatus\/state must be equal to one of the allowed values/,
    );
    const misspelt = structuredClone(good) as unknown as { status: { jobStatus: Record<string, unknown> } };
    misspelt.status.jobStatus.jobID = JOB_A;
    expect(crdProblems(misspelt as never).join()).toMatch(/must NOT have additional properties \(jobID\)/);
    const wrongType = structuredClone(good) as unknown as { spec: { job: { parallelism: unknown } } };
    wrongType.spec.job.parallelism = "two";
    expect(crdProblems(wrongType as never).join()).toMatch(/\/spec\/job\/parallelism must be integer/);
  });
});

/** A connection straight at the stand-in with the bot's token (what a kubeconfig would give). */
function kubeconfigLike(server: KubernetesApiStandIn) {
  const dir = mkdtempSync(join(tmpdir(), "k8s-kc-"));
  dirs.push(dir);
  const file = join(dir, "config");
  writeFileSync(file, kubeconfigText(server));
  return kubeconfigConnection(file);
}
