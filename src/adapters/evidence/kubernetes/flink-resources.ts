// From the Flink Kubernetes Operator's resources to Flink sources: one JobManager REST endpoint per
// FlinkDeployment (an application cluster runs one job, a session cluster the FlinkSessionJobs that
// name it in spec.deploymentName). Field names follow the operator's CRDs (flink.apache.org/v1beta1,
// test/fixtures/upstream/flink-kubernetes-operator); only what discovery reads is checked, and a
// resource whose status has no job id yet is pending, not an error.

import { z } from "zod";

const Metadata = z.object({ name: z.string().min(1), namespace: z.string().min(1) });

const JobStatus = z
  .object({
    jobId: z.string().optional(),
    jobName: z.string().optional(),
    state: z.string().optional(),
  })
  .optional();

export const FlinkDeploymentResource = z.object({
  metadata: Metadata,
  spec: z
    .object({
      flinkConfiguration: z.unknown().optional(),
      // Present for an application cluster; absent for a session cluster.
      job: z.object({}).passthrough().optional(),
    })
    .default({}),
  status: z
    .object({
      jobStatus: JobStatus,
      lifecycleState: z.string().optional(),
      jobManagerDeploymentStatus: z.string().optional(),
      error: z.string().optional(),
    })
    .optional(),
});

export const FlinkSessionJobResource = z.object({
  metadata: Metadata,
  spec: z.object({ deploymentName: z.string().min(1) }),
  status: z
    .object({ jobStatus: JobStatus, lifecycleState: z.string().optional(), error: z.string().optional() })
    .optional(),
});

export type FlinkDeploymentResource = z.infer<typeof FlinkDeploymentResource>;
export type FlinkSessionJobResource = z.infer<typeof FlinkSessionJobResource>;

/** One job a discovered JobManager runs (or will run: pending until the operator reports its id). */
export interface DiscoveredJob {
  /** The resource that declares it: "FlinkDeployment/<name>" or "FlinkSessionJob/<name>". */
  resource: string;
  jobId?: string;
  jobName?: string;
  /** The job's state as the operator last saw it (RUNNING, FAILED, …). */
  state?: string;
  /** The resource's lifecycle (CREATED, DEPLOYED, STABLE, UPGRADING, FAILED, …). */
  lifecycleState?: string;
  /** True while the status carries no job id yet (just deployed, or still upgrading). */
  pending: boolean;
  /** The operator's error for this resource, if it reported one. */
  error?: string;
}

/** One JobManager's REST API, as a Flink source. */
export interface DiscoveredFlinkSource {
  /** "<namespace>/<deployment>". */
  name: string;
  namespace: string;
  deployment: string;
  restUrl: string;
  /** "application" (spec.job set: one job per cluster) or "session" (jobs from FlinkSessionJobs). */
  mode: "application" | "session";
  lifecycleState?: string;
  /** READY, DEPLOYING, MISSING, … (status.jobManagerDeploymentStatus). */
  jobManagerStatus?: string;
  jobs: DiscoveredJob[];
}

const DEFAULT_REST_PORT = 8081;

/** Where the REST API of a deployment is: the operator's `<name>-rest` Service, or the template. */
export function restUrlOf(
  deployment: FlinkDeploymentResource | undefined,
  namespace: string,
  name: string,
  template?: string,
): string {
  const conf = deployment?.spec.flinkConfiguration;
  const port = Number(configValue(conf, "rest.port") ?? DEFAULT_REST_PORT);
  const safePort = Number.isInteger(port) && port > 0 && port < 65_536 ? port : DEFAULT_REST_PORT;
  const tls = String(configValue(conf, "security.ssl.rest.enabled") ?? "false").toLowerCase() === "true";
  const fill = template ?? `${tls ? "https" : "http"}://{name}-rest.{namespace}.svc:{port}`;
  return fill
    .replaceAll("{name}", name)
    .replaceAll("{namespace}", namespace)
    .replaceAll("{port}", String(safePort));
}

/**
 * flinkConfiguration is free-form: flat keys ("rest.port": "8081") as most examples write it, or
 * nested YAML (rest: {port: 8081}) as newer operator versions accept.
 */
function configValue(conf: unknown, key: string): unknown {
  if (!conf || typeof conf !== "object") return undefined;
  const flat = (conf as Record<string, unknown>)[key];
  if (flat !== undefined) return flat;
  let node: unknown = conf;
  for (const part of key.split(".")) {
    if (!node || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

function jobOf(
  resource: string,
  status: { jobStatus?: z.infer<typeof JobStatus>; lifecycleState?: string; error?: string } | undefined,
): DiscoveredJob {
  const jobId = status?.jobStatus?.jobId?.trim() || undefined;
  return {
    resource,
    jobId,
    jobName: status?.jobStatus?.jobName || undefined,
    state: status?.jobStatus?.state || undefined,
    lifecycleState: status?.lifecycleState,
    pending: jobId === undefined,
    ...(status?.error ? { error: status.error } : {}),
  };
}

/** Flink sources from one listing; session jobs whose deployment was not listed still get theirs. */
export function toFlinkSources(
  deployments: readonly FlinkDeploymentResource[],
  sessionJobs: readonly FlinkSessionJobResource[],
  restUrlTemplate?: string,
): DiscoveredFlinkSource[] {
  const byKey = new Map<string, DiscoveredFlinkSource>();
  for (const d of deployments) {
    const { name, namespace } = d.metadata;
    const application = d.spec.job !== undefined;
    byKey.set(`${namespace}/${name}`, {
      name: `${namespace}/${name}`,
      namespace,
      deployment: name,
      restUrl: restUrlOf(d, namespace, name, restUrlTemplate),
      mode: application ? "application" : "session",
      lifecycleState: d.status?.lifecycleState,
      jobManagerStatus: d.status?.jobManagerDeploymentStatus,
      jobs: application ? [jobOf(`FlinkDeployment/${name}`, d.status)] : [],
    });
  }
  for (const j of sessionJobs) {
    const { namespace } = j.metadata;
    const key = `${namespace}/${j.spec.deploymentName}`;
    let source = byKey.get(key);
    if (!source) {
      source = {
        name: key,
        namespace,
        deployment: j.spec.deploymentName,
        restUrl: restUrlOf(undefined, namespace, j.spec.deploymentName, restUrlTemplate),
        mode: "session",
        jobs: [],
      };
      byKey.set(key, source);
    }
    source.jobs.push(jobOf(`FlinkSessionJob/${j.metadata.name}`, j.status));
  }
  for (const source of byKey.values()) source.jobs.sort((a, b) => a.resource.localeCompare(b.resource));
  return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name));
}
