// The Kubernetes manifests under deploy/kubernetes: every document validates against the
// Kubernetes API schemas (kubernetes-models), the Deployments pass every environment variable
// src/config.ts reads, and the pieces fit together (selectors, probes, Service, budgets).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { BotConfigSchema, ENV_NAMES } from "../../src/config.js";

const DIR = "deploy/kubernetes";

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked by the schema validators below
  [key: string]: any;
}

const docs: Array<{ file: string; doc: Doc }> = readdirSync(DIR)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(DIR, file), "utf8")).map((d) => {
      if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]?.message}`);
      return { file, doc: d.toJSON() as Doc };
    }),
  );

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "v1/Namespace": Namespace,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
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
      const missing = ENV_NAMES.filter((name) => !names.has(name));
      expect(missing, `${deployment.metadata.name} lacks`).toEqual([]);
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
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
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
});
