// A small Flink-on-Kubernetes platform for the Kubernetes API stand-in: resources built from the
// operator's upstream examples with statuses of our own, the shipped RBAC manifests, the test
// cluster's TLS material and the bot's tokens.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import {
  type KubernetesApiStandIn,
  type RbacDocument,
  type StandInResource,
  serviceAccountUser,
  startKubernetesApiStandIn,
} from "../../src/sim/servers/kubernetes-api.js";
import { upstreamExamples } from "./flink-crds.js";

const TLS_DIR = "test/fixtures/kubernetes-tls";
export const tls = (name: string) => readFileSync(join(TLS_DIR, name), "utf8");
export const SA_TOKEN = "sa-token-7f3c9e1d";
export const STRANGER_TOKEN = "stranger-token-55aa";
export const BOT = serviceAccountUser("iceberg-bot", "iceberg-bot");

export const JOB_A = "4f2a6c1e9b0d4e7fa1c3b5d7e9f10234";
export const JOB_S1 = "a1b2c3d4e5f60718293a4b5c6d7e8f90";

/** The shipped RBAC, with its namespace swapped as its header comment says to. */
export function rbacFor(file: string, namespace?: string): RbacDocument[] {
  const text = readFileSync(file, "utf8");
  const swapped = namespace ? text.replace(/namespace: flink$/gm, `namespace: ${namespace}`) : text;
  return parseAllDocuments(swapped).map((d) => d.toJSON() as RbacDocument);
}

export const application = upstreamExamples("basic.yaml");
export const session = upstreamExamples("basic-session-deployment-and-job.yaml");

export function fromExample(
  example: { kind: string; spec: unknown } | undefined,
  namespace: string,
  name: string,
  status?: unknown,
): StandInResource {
  if (!example) throw new Error("missing upstream example");
  return {
    kind: example.kind as StandInResource["kind"],
    metadata: { name, namespace },
    spec: structuredClone(example.spec),
    ...(status === undefined ? {} : { status }),
  };
}

/** A running job's status; a FlinkSessionJob's status has no JobManager of its own. */
export const running = (
  jobId: string,
  jobName: string,
  kind: "FlinkDeployment" | "FlinkSessionJob" = "FlinkDeployment",
) => ({
  jobStatus: { jobId, jobName, state: "RUNNING", startTime: "1767600000000", updateTime: "1767600300000" },
  lifecycleState: "STABLE",
  ...(kind === "FlinkDeployment" ? { jobManagerDeploymentStatus: "READY" } : {}),
  reconciliationStatus: { state: "DEPLOYED" },
});

/** events-ingest (application, running), orders (application, just deployed: no job id), a session cluster with two jobs. */
export function platform(): StandInResource[] {
  const withPort = fromExample(
    application.get("basic-example"),
    "flink",
    "events-ingest",
    running(JOB_A, "events-ingest"),
  );
  (withPort.spec as { flinkConfiguration: Record<string, string> }).flinkConfiguration["rest.port"] = "8082";
  return [
    withPort,
    fromExample(application.get("basic-example"), "flink", "orders-ingest", {
      jobStatus: { state: "RECONCILING" },
      lifecycleState: "DEPLOYED",
      jobManagerDeploymentStatus: "DEPLOYING",
    }),
    fromExample(session.get("basic-session-deployment-example"), "flink", "shared-session", {
      lifecycleState: "STABLE",
      jobManagerDeploymentStatus: "READY",
    }),
    {
      ...fromExample(
        session.get("basic-session-job-example"),
        "flink",
        "clicks-ingest",
        running(JOB_S1, "clicks-ingest", "FlinkSessionJob"),
      ),
      spec: {
        ...(session.get("basic-session-job-example")?.spec as object),
        deploymentName: "shared-session",
      },
    },
    {
      ...fromExample(session.get("basic-session-job-example2"), "flink", "payments-ingest"),
      spec: {
        ...(session.get("basic-session-job-example2")?.spec as object),
        deploymentName: "shared-session",
      },
    },
  ];
}

/** The stand-in over TLS (test cluster CA, client certificates verified), serving platform() by default. */
export function startPlatformStandIn(options: {
  rbac: RbacDocument[];
  resources?: StandInResource[];
}): Promise<KubernetesApiStandIn> {
  return startKubernetesApiStandIn({
    tls: { key: tls("server.key"), cert: tls("server.crt"), ca: tls("ca.crt") },
    tokens: { [SA_TOKEN]: BOT, [STRANGER_TOKEN]: serviceAccountUser("other", "default") },
    rbac: options.rbac,
    resources: options.resources ?? platform(),
  });
}

/** A kubeconfig for the stand-in: its CA inline and a bearer token. */
export function kubeconfigText(server: KubernetesApiStandIn, token = SA_TOKEN): string {
  const ca = Buffer.from(tls("ca.crt")).toString("base64");
  return `current-context: c\nclusters: [{name: s, cluster: {server: "${server.url}", certificate-authority-data: ${ca}}}]\ncontexts: [{name: c, context: {cluster: s, user: u}}]\nusers: [{name: u, user: {token: ${token}}}]\n`;
}
