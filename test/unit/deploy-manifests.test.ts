// The Kubernetes manifests under deploy/kubernetes: every document validates against the
// Kubernetes API schemas (kubernetes-models) with unknown fields refused, the Deployments get
// every environment variable src/config.ts reads but only the secrets their role uses, and the
// pieces fit together (selectors, probes, Service, Ingress, policies, budgets, grace periods).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  RBAC_CLUSTER_MANIFEST,
  RBAC_NAMESPACE_MANIFEST,
} from "../../src/adapters/evidence/kubernetes/client.js";
import { ENV_NAMES } from "../../src/config.js";
import { BotConfigSchema } from "../../src/core/settings.js";
import { SHUTDOWN_DEADLINE_MS } from "../../src/main.js";
import { unknownFields } from "../support/k8s-strict.js";
import { kustomizeBuild, type Manifest, readKustomization, readManifests } from "../support/kustomize.js";

const DIR = "deploy/kubernetes";
/** Not applied: the Secret is created from the operator's secret store. */
const SECRET_EXAMPLE = `${DIR}/examples/secret.example.yaml`;

type Doc = Manifest;

/** What `kubectl apply -k deploy/kubernetes` applies. */
const applied = kustomizeBuild(DIR);
const docs = [...applied, ...readManifests(SECRET_EXAMPLE)];
/** The optional RBAC for Flink Kubernetes Operator discovery (docs/kubernetes.md). */
const DISCOVERY_DIR = `${DIR}/flink-discovery`;
const discoveryDocs = readdirSync(DISCOVERY_DIR)
  .filter((f) => f.endsWith(".yaml") && !f.endsWith(".patch.yaml"))
  .sort()
  .flatMap((file) => readManifests(join(DISCOVERY_DIR, file)));

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "v1/Namespace": Namespace,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
  "apps/v1/Deployment": Deployment,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "networking.k8s.io/v1/Ingress": Ingress,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "rbac.authorization.k8s.io/v1/Role": Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": RoleBinding,
  "rbac.authorization.k8s.io/v1/ClusterRole": ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": ClusterRoleBinding,
};

/** Secrets a role never reads: a worker neither verifies Slack requests nor takes webhooks. */
const NOT_USED_BY: Record<string, string[]> = {
  worker: ["SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "ALERT_WEBHOOK_TOKEN"],
};

const byKind = (kind: string) => docs.filter((d) => d.doc.kind === kind).map((d) => d.doc);
const named = (kind: string, name: string) => byKind(kind).find((d) => d.metadata.name === name);

describe("Kubernetes manifests", () => {
  it("validate against the Kubernetes API schemas", () => {
    expect(docs.length).toBeGreaterThanOrEqual(9);
    for (const { file, doc } of docs) {
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      expect(Model, `${file}: ${doc.apiVersion} ${doc.kind} has no model here`).toBeDefined();
      expect(
        () => new (Model as NonNullable<typeof Model>)(doc as never).validate(),
        `${file} ${doc.kind}`,
      ).not.toThrow();
      if (doc.kind !== "Namespace") expect(doc.metadata.namespace, file).toBe("iceberg-bot");
    }
  });

  it("declare no field the Kubernetes API does not know (strict validation)", () => {
    const found = docs.flatMap(({ file, doc }) => unknownFields(doc).map((f) => `${file}: ${f}`));
    expect(found).toEqual([]);
    // The check itself finds a misspelt key at any depth.
    const deployment = structuredClone(named("Deployment", "iceberg-bot-worker")) as Doc;
    deployment.spec.template.spec.containers[0].livenessProbe.httpGet.paht = "/healthz";
    expect(unknownFields(deployment)).toEqual([
      "Deployment.spec.template.spec.containers[0].livenessProbe.httpGet.paht",
    ]);
  });

  it("give receivers and workers every variable src/config.ts reads", () => {
    const deployments = byKind("Deployment");
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      "iceberg-bot-receiver",
      "iceberg-bot-worker",
    ]);
    const secret = named("Secret", "iceberg-bot-secrets");
    expect(secret).toBeDefined();
    for (const deployment of deployments) {
      const container = deployment.spec.template.spec.containers[0];
      const names = new Set<string>();
      for (const from of container.envFrom ?? []) {
        const source = from.configMapRef
          ? named("ConfigMap", from.configMapRef.name)
          : named("Secret", from.secretRef?.name);
        expect(source, `${deployment.metadata.name} envFrom ${JSON.stringify(from)}`).toBeDefined();
        for (const key of Object.keys(source?.data ?? source?.stringData ?? {})) names.add(key);
      }
      for (const variable of container.env ?? []) {
        names.add(variable.name);
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref) expect(Object.keys(secret?.stringData ?? {}), variable.name).toContain(ref.key);
      }
      const role = deployment.metadata.name.replace("iceberg-bot-", "");
      const notUsed = NOT_USED_BY[role] ?? [];
      const missing = ENV_NAMES.filter((name) => !names.has(name) && !notUsed.includes(name));
      expect(missing, `${deployment.metadata.name} lacks`).toEqual([]);
      // Only the secrets the role uses.
      expect(
        notUsed.filter((name) => names.has(name)),
        `${deployment.metadata.name} gets`,
      ).toEqual([]);
      // Secrets never sit in the ConfigMap.
      const env = named("ConfigMap", "iceberg-bot-env");
      for (const key of Object.keys(secret?.stringData ?? {}))
        expect(Object.keys(env?.data ?? {})).not.toContain(key);
    }
  });

  it("mount BOT_CONFIG from its ConfigMap, and the file is a valid bot config", () => {
    const env = named("ConfigMap", "iceberg-bot-env");
    const files = named("ConfigMap", "iceberg-bot-config");
    const path = env?.data?.BOT_CONFIG as string;
    const fileName = path.split("/").pop() as string;
    const dir = path.slice(0, -fileName.length - 1);
    expect(BotConfigSchema.safeParse(parseAllDocuments(files?.data?.[fileName])[0]?.toJSON()).success).toBe(
      true,
    );
    for (const deployment of byKind("Deployment")) {
      const spec = deployment.spec.template.spec;
      const mount = spec.containers[0].volumeMounts.find((m: { mountPath: string }) => m.mountPath === dir);
      const volume = spec.volumes.find((v: { name: string }) => v.name === mount?.name);
      expect(volume?.configMap?.name, deployment.metadata.name).toBe("iceberg-bot-config");
    }
  });

  it("probe the receivers on /healthz and /readyz, expose them through the Service, and budget disruptions", () => {
    const receiver = named("Deployment", "iceberg-bot-receiver");
    const container = receiver?.spec.template.spec.containers[0];
    expect(container.args).toEqual(["serve"]);
    // Redis alone pulls a receiver out of its Service: Slack's troubles must not stop alert intake.
    expect(container.readinessProbe.httpGet.path).toBe("/readyz?check=redis");
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    const port = container.ports.find((p: { name: string }) => p.name === "http");
    expect(port.containerPort).toBe(Number(named("ConfigMap", "iceberg-bot-env")?.data?.PORT));
    const service = named("Service", "iceberg-bot-receiver");
    expect(service?.spec.selector).toEqual(receiver?.spec.selector.matchLabels);
    expect(named("Deployment", "iceberg-bot-worker")?.spec.template.spec.containers[0].args).toEqual([
      "worker",
    ]);
    for (const deployment of byKind("Deployment")) {
      expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
      expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
      const resources = deployment.spec.template.spec.containers[0].resources;
      expect(resources.requests.cpu && resources.requests.memory && resources.limits.memory).toBeTruthy();
      const budget = byKind("PodDisruptionBudget").find(
        (b) =>
          JSON.stringify(b.spec.selector.matchLabels) ===
          JSON.stringify(deployment.spec.selector.matchLabels),
      );
      expect(budget, `a PodDisruptionBudget for ${deployment.metadata.name}`).toBeDefined();
    }
  });

  it("probe the workers on their metrics port, which Prometheus scrapes", () => {
    const worker = named("Deployment", "iceberg-bot-worker");
    const template = worker?.spec.template;
    const container = template.spec.containers[0];
    const port = container.ports.find((p: { name: string }) => p.name === "metrics");
    expect(port.containerPort).toBe(Number(named("ConfigMap", "iceberg-bot-env")?.data?.METRICS_PORT));
    // What a worker needs to take jobs, Redis: Slack's troubles must not stall drains and rollouts.
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz?check=redis", port: "metrics" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "metrics" });
    expect(template.metadata.annotations["prometheus.io/port"]).toBe(String(port.containerPort));
  });

  it("run without a Kubernetes API token, within the default grace period", () => {
    const account = named("ServiceAccount", "iceberg-bot");
    expect(account?.automountServiceAccountToken).toBe(false);
    for (const deployment of byKind("Deployment")) {
      const spec = deployment.spec.template.spec;
      expect(spec.serviceAccountName, deployment.metadata.name).toBe("iceberg-bot");
      expect(spec.automountServiceAccountToken, deployment.metadata.name).toBe(false);
      // Kubernetes' default, and room for the bot's own shutdown deadline.
      expect(spec.terminationGracePeriodSeconds ?? 30).toBeLessThanOrEqual(30);
      expect((spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(SHUTDOWN_DEADLINE_MS);
    }
  });

  it("let in only each role's own port, and publish only Slack's path through the Ingress", () => {
    for (const deployment of byKind("Deployment")) {
      const labels = deployment.spec.selector.matchLabels;
      const policy = byKind("NetworkPolicy").find(
        (p) => JSON.stringify(p.spec.podSelector.matchLabels) === JSON.stringify(labels),
      );
      expect(policy, `a NetworkPolicy for ${deployment.metadata.name}`).toBeDefined();
      expect(policy?.spec.policyTypes).toContain("Ingress");
      const portNames = deployment.spec.template.spec.containers[0].ports.map(
        (p: { name: string }) => p.name,
      );
      const rules: Array<{ from?: unknown[]; ports: Array<{ port: string }> }> = policy?.spec.ingress;
      expect([...new Set(rules.flatMap((rule) => rule.ports.map((p) => p.port)))]).toEqual(portNames);
      // Every rule names who may call: no port is open to the whole cluster.
      for (const rule of rules) expect(rule.from?.length, deployment.metadata.name).toBeGreaterThan(0);
    }
    const ingress = byKind("Ingress")[0];
    const paths = ingress?.spec.rules.flatMap(
      (r: { http: { paths: Array<{ path: string; backend: { service: { name: string } } }> } }) =>
        r.http.paths,
    );
    expect(paths.map((p: { path: string }) => p.path)).toEqual(["/slack/events"]);
    expect(paths[0].backend.service.name).toBe(named("Service", "iceberg-bot-receiver")?.metadata.name);
    expect(ingress?.spec.tls.length).toBeGreaterThan(0);
  });
});

/** The namespace a Service host names: `name.namespace.svc[...]`. */
const namespaceOf = (host: string) => host.split(".")[1];
interface PolicyPeer {
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyRule {
  to?: PolicyPeer[];
  from?: PolicyPeer[];
  ports?: Array<{ port: number | string; protocol?: string }>;
}
const peerNamespaces = (peers: PolicyPeer[] = []) =>
  peers.map((p) => p.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"]);

describe("Kubernetes manifests as an operator applies them (kubectl apply -k)", () => {
  const kustomization = readKustomization(DIR);
  const version = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

  it("apply every manifest but the example Secret, whose placeholders never overwrite the real one", () => {
    const manifests = readdirSync(DIR).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml");
    expect([...(kustomization.resources ?? [])].sort()).toEqual(manifests.sort());
    expect(applied.filter(({ doc }) => doc.kind === "Secret")).toEqual([]);
    // Not where `kubectl apply -f deploy/kubernetes/` would find it either.
    expect(existsSync(`${DIR}/secret.example.yaml`)).toBe(false);
    expect(readManifests(SECRET_EXAMPLE).map(({ doc }) => doc.kind)).toEqual(["Secret"]);
  });

  it("generate the ConfigMaps, so a change renames them and rolls the pods that reference them", () => {
    // None written by hand: kustomize names a generated ConfigMap by a hash of its content and
    // rewrites the Deployments' references, so a changed setting is a changed pod template.
    const written = (kustomization.resources ?? []).flatMap((file) =>
      readManifests(join(DIR, file)).filter(({ doc }) => doc.kind === "ConfigMap"),
    );
    expect(written).toEqual([]);
    expect(kustomization.generatorOptions?.disableNameSuffixHash ?? false).toBe(false);
    const generated = new Set((kustomization.configMapGenerator ?? []).map((g) => g.name));
    for (const g of kustomization.configMapGenerator ?? [])
      expect(g.options?.disableNameSuffixHash ?? false, g.name).toBe(false);
    for (const deployment of byKind("Deployment")) {
      const spec = deployment.spec.template.spec;
      const referenced = [
        ...spec.containers.flatMap((c: { envFrom?: Array<{ configMapRef?: { name: string } }> }) =>
          (c.envFrom ?? []).map((f) => f.configMapRef?.name).filter(Boolean),
        ),
        ...spec.volumes.map((v: { configMap?: { name: string } }) => v.configMap?.name).filter(Boolean),
      ];
      expect(referenced.length, deployment.metadata.name).toBeGreaterThan(0);
      for (const name of referenced) expect([...generated], deployment.metadata.name).toContain(name);
    }
  });

  it("run this release's image: the tag is package.json's version, and the docs pin it by digest", () => {
    const images = kustomization.images ?? [];
    expect(images).toHaveLength(1);
    const [image] = images;
    expect(image?.newTag).toBe(version);
    for (const deployment of byKind("Deployment"))
      for (const container of deployment.spec.template.spec.containers)
        expect(container.image, deployment.metadata.name).toBe(`${image?.name}:${version}`);
    const guide = readFileSync("docs/kubernetes.md", "utf8");
    expect(guide).toMatch(new RegExp(`${image?.name}@sha256:[0-9a-f]{64}`));
    expect(guide).toMatch(/digest: sha256:[0-9a-f]{64}/);
  });

  it("satisfy Pod Security `restricted`, which the namespace enforces", () => {
    const namespace = named("Namespace", "iceberg-bot");
    expect(namespace?.metadata.labels).toMatchObject({
      "pod-security.kubernetes.io/enforce": "restricted",
      "pod-security.kubernetes.io/warn": "restricted",
      "pod-security.kubernetes.io/audit": "restricted",
    });
    const allowedVolumes = [
      "configMap",
      "csi",
      "downwardAPI",
      "emptyDir",
      "ephemeral",
      "persistentVolumeClaim",
      "projected",
      "secret",
    ];
    for (const deployment of byKind("Deployment")) {
      const pod = deployment.spec.template.spec;
      const name = deployment.metadata.name;
      expect(pod.hostNetwork ?? false, name).toBe(false);
      expect(pod.hostPID ?? false, name).toBe(false);
      expect(pod.hostIPC ?? false, name).toBe(false);
      for (const volume of pod.volumes ?? [])
        expect(
          Object.keys(volume).filter((k) => k !== "name"),
          name,
        ).toEqual([expect.toBeOneOf(allowedVolumes)]);
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const sc = container.securityContext ?? {};
        const where = `${name} ${container.name}`;
        expect(sc.privileged ?? false, where).toBe(false);
        expect(sc.allowPrivilegeEscalation, where).toBe(false);
        expect(sc.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, where).toBe(true);
        expect(sc.runAsUser ?? pod.securityContext?.runAsUser, where).not.toBe(0);
        expect(sc.capabilities?.drop, where).toContain("ALL");
        expect(
          (sc.capabilities?.add ?? []).filter((c: string) => c !== "NET_BIND_SERVICE"),
          where,
        ).toEqual([]);
        const seccomp = sc.seccompProfile?.type ?? pod.securityContext?.seccompProfile?.type;
        expect(["RuntimeDefault", "Localhost"], where).toContain(seccomp);
        expect(container.ports?.every((p: { hostPort?: number }) => p.hostPort === undefined) ?? true).toBe(
          true,
        );
      }
    }
  });

  it("give each pod a startupProbe on /healthz, so a slow start is not killed by the liveness probe", () => {
    for (const deployment of byKind("Deployment")) {
      const container = deployment.spec.template.spec.containers[0];
      const startup = container.startupProbe;
      expect(startup?.httpGet, deployment.metadata.name).toEqual(container.livenessProbe.httpGet);
      // Room for Redis, Slack's auth.test and the workers to start: more than the liveness probe's.
      const allowed = (p: { periodSeconds?: number; failureThreshold?: number }) =>
        (p.periodSeconds ?? 10) * (p.failureThreshold ?? 3);
      expect(allowed(startup)).toBeGreaterThanOrEqual(60);
      expect(allowed(startup)).toBeGreaterThan(allowed(container.livenessProbe));
    }
  });

  it("let the workers be called for metrics only, by Prometheus's namespace", () => {
    const worker = byKind("NetworkPolicy").find(
      (p) => p.spec.podSelector.matchLabels?.["app.kubernetes.io/component"] === "worker",
    );
    const rules: PolicyRule[] = worker?.spec.ingress ?? [];
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(rule.ports?.map((p) => p.port)).toEqual(["metrics"]);
      expect(peerNamespaces(rule.from)).toEqual([
        namespaceOf(new URL(named("ConfigMap", "iceberg-bot-env")?.data?.PROMETHEUS_URL).hostname),
      ]);
    }
  });

  it("let every bot pod reach only DNS, Redis, its configured sources and HTTPS outside the cluster", () => {
    const egress = byKind("NetworkPolicy").filter((p) => p.spec.policyTypes.includes("Egress"));
    expect(egress).toHaveLength(1);
    const policy = egress[0] as Doc;
    // Selects every pod of the bot, receivers and workers.
    for (const deployment of byKind("Deployment"))
      expect(deployment.spec.template.metadata.labels).toMatchObject(policy.spec.podSelector.matchLabels);
    const rules: PolicyRule[] = policy.spec.egress;
    const allows = (namespace: string | undefined, port: number, protocol = "TCP") =>
      rules.some(
        (rule) =>
          (rule.ports ?? []).some((p) => p.port === port && (p.protocol ?? "TCP") === protocol) &&
          (namespace === undefined
            ? (rule.to ?? []).some((peer) => peer.ipBlock?.cidr === "0.0.0.0/0")
            : peerNamespaces(rule.to).includes(namespace)),
      );
    expect(allows("kube-system", 53, "UDP")).toBe(true);
    expect(allows("kube-system", 53, "TCP")).toBe(true);
    const env = named("ConfigMap", "iceberg-bot-env")?.data as Record<string, string>;
    const sources = ["ICEBERG_CATALOG_URL", "FLINK_REST_URL", "CONNECT_REST_URL", "PROMETHEUS_URL"];
    for (const variable of sources) {
      const url = new URL(env[variable] as string);
      expect(allows(namespaceOf(url.hostname), Number(url.port)), variable).toBe(true);
    }
    // The example Secret's Redis: its Sentinels, and the primaries they name (6379).
    const redisUrl = named("Secret", "iceberg-bot-secrets")?.stringData.REDIS_URL as string;
    const sentinel = new URL(redisUrl.replace(/^redis\+sentinel:/, "http:"));
    expect(allows(namespaceOf(sentinel.hostname), Number(sentinel.port))).toBe(true);
    expect(allows(namespaceOf(sentinel.hostname), 6379)).toBe(true);
    // Slack's Web API, outside the cluster.
    expect(allows(undefined, 443)).toBe(true);
    // Nothing else: every rule names its destination and its ports.
    for (const rule of rules) {
      expect(rule.to?.length).toBeGreaterThan(0);
      expect(rule.ports?.length).toBeGreaterThan(0);
    }
  });
});

describe("Flink Kubernetes Operator discovery RBAC (deploy/kubernetes/flink-discovery)", () => {
  it("validates against the Kubernetes API schemas, with no unknown field", () => {
    expect(discoveryDocs.map((d) => `${d.file} ${d.doc.kind}`)).toEqual([
      "rbac-cluster.yaml ClusterRole",
      "rbac-cluster.yaml ClusterRoleBinding",
      "rbac-namespace.yaml Role",
      "rbac-namespace.yaml RoleBinding",
    ]);
    expect([RBAC_NAMESPACE_MANIFEST, RBAC_CLUSTER_MANIFEST].every((f) => existsSync(f))).toBe(true);
    for (const { file, doc } of discoveryDocs) {
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`] as NonNullable<(typeof MODELS)[string]>;
      expect(() => new Model(doc as never).validate(), `${file} ${doc.kind}`).not.toThrow();
      expect(unknownFields(doc), file).toEqual([]);
    }
  });

  it("grants only get and list on flinkdeployments and flinksessionjobs, to the bot's service account", () => {
    const account = named("ServiceAccount", "iceberg-bot");
    for (const { file, doc } of discoveryDocs) {
      if (doc.kind === "Role" || doc.kind === "ClusterRole") {
        expect(doc.rules, file).toEqual([
          {
            apiGroups: ["flink.apache.org"],
            resources: ["flinkdeployments", "flinksessionjobs"],
            verbs: ["get", "list"],
          },
        ]);
        continue;
      }
      expect(doc.subjects, file).toEqual([
        { kind: "ServiceAccount", name: account?.metadata.name, namespace: account?.metadata.namespace },
      ]);
      const role = discoveryDocs.find((d) => d.file === file && d.doc.kind === doc.roleRef.kind)?.doc;
      expect(role?.metadata.name, `${file}: the roleRef names the role beside it`).toBe(doc.roleRef.name);
      // A RoleBinding grants in its own namespace: the Role's.
      if (doc.kind === "RoleBinding") expect(doc.metadata.namespace).toBe(role?.metadata.namespace);
    }
  });

  it("mounts the service account token in the workers only through its patch", () => {
    const patch = parseAllDocuments(
      readFileSync(`${DISCOVERY_DIR}/worker-token.patch.yaml`, "utf8"),
    )[0]?.toJSON();
    expect(patch).toEqual({ spec: { template: { spec: { automountServiceAccountToken: true } } } });
    const worker = structuredClone(named("Deployment", "iceberg-bot-worker")) as Doc;
    worker.spec.template.spec.automountServiceAccountToken = true;
    expect(() => new Deployment(worker as never).validate()).not.toThrow();
  });
});

describe(".dockerignore", () => {
  const ignored = readFileSync(".dockerignore", "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  it("keeps secrets and build outputs out of the build context, and nothing the Dockerfile copies", () => {
    for (const entry of [".env", ".git", "node_modules", "dist", "test"]) expect(ignored).toContain(entry);
    const copied = [...readFileSync("Dockerfile", "utf8").matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap(
      (m) => (m[1] as string).split(/\s+/),
    );
    expect(copied.length).toBeGreaterThan(3);
    for (const source of copied) {
      expect(existsSync(source), source).toBe(true);
      expect(
        ignored.filter((entry) => source === entry || source.startsWith(`${entry}/`)),
        source,
      ).toEqual([]);
    }
  });
});
