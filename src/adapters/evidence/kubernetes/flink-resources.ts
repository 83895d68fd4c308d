// From the Flink Kubernetes Operator's resources to Flink sources: one JobManager REST endpoint per
// FlinkDeployment (an application cluster runs one job, a session cluster the FlinkSessionJobs that
// name it in spec.deploymentName). Field names follow the operator's CRDs (flink.apache.org/v1beta1,
// test/fixtures/upstream/flink-kubernetes-operator); only what discovery reads is checked, and a
// resource whose status has no job id yet is pending, not an error.
//
// Whoever can create a FlinkDeployment (or answer as the API server) chooses its name, so a name
// steers the URL the bot calls with a JobManager's credentials: names and namespaces must be DNS
// labels as Kubernetes defines them, each is percent-encoded into the template, and a URL whose
// host is not the one the template makes, or that carries user:password@, is refused.

import { z } from "zod";
import { RFC1123_LABEL } from "../../../core/kubernetes-settings.js";

const Label = z.string().regex(RFC1123_LABEL, "a Kubernetes name (RFC 1123 label: a-z, 0-9, '-', up to 63)");

const Metadata = z.object({
  name: Label,
  namespace: Label,
  labels: z.record(z.string(), z.string()).optional(),
});

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
  spec: z.object({ deploymentName: Label }),
  status: z
    .object({ jobStatus: JobStatus, lifecycleState: z.string().optional(), error: z.string().optional() })
    .optional(),
});

export type FlinkDeploymentResource = z.infer<typeof FlinkDeploymentResource>;
export type FlinkSessionJobResource = z.infer<typeof FlinkSessionJobResource>;

/** One job a discovered JobManager runs (or will run: pending until the operator reports its id). */
interface DiscoveredJob {
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
  /** The FlinkDeployment's labels (absent for a session job whose deployment was not listed). */
  labels?: Record<string, string>;
  /** "application" (spec.job set: one job per cluster) or "session" (jobs from FlinkSessionJobs). */
  mode: "application" | "session";
  lifecycleState?: string;
  /** READY, DEPLOYING, MISSING, … (status.jobManagerDeploymentStatus). */
  jobManagerStatus?: string;
  jobs: DiscoveredJob[];
}

const DEFAULT_REST_PORT = 8081;

/** A resource discovery leaves out, and why. */
export type SkippedResource = { resource: string; reason: string };

/** Where a deployment's REST API is, or why its URL is refused. */
export type RestUrl = { url: string } | { refused: string };

/**
 * Where the REST API of a deployment is: the operator's `<name>-rest` Service, or the template.
 * `tls`: TLS is configured for this JobManager, so the default URL is https whatever the
 * deployment's own `security.ssl.rest.enabled` says (its author must not turn TLS off for us).
 */
export function restUrlOf(
  deployment: FlinkDeploymentResource | undefined,
  namespace: string,
  name: string,
  template?: string,
  tls = false,
): RestUrl {
  const conf = deployment?.spec.flinkConfiguration;
  const port = Number(configValue(conf, "rest.port") ?? DEFAULT_REST_PORT);
  const safePort = Number.isInteger(port) && port > 0 && port < 65_536 ? port : DEFAULT_REST_PORT;
  const restTls =
    tls || String(configValue(conf, "security.ssl.rest.enabled") ?? "false").toLowerCase() === "true";
  const fill = template ?? `${restTls ? "https" : "http"}://{name}-rest.{namespace}.svc:{port}`;
  const values: Record<string, string> = { name, namespace, port: String(safePort) };
  // One pass over the template: a value is never searched for placeholders again.
  const substitute = (text: string) =>
    text.replace(/\{(name|namespace|port)\}/g, (_m, key: string) => encodeURIComponent(values[key] ?? ""));
  const filled = substitute(fill);
  const url = parsed(filled);
  if (!url) return { refused: `its REST URL ${JSON.stringify(filled.slice(0, 200))} is not a URL` };
  if (url.username || url.password) return { refused: "its REST URL carries user:password@" };
  // The host the template's own authority makes with these values, parsed on its own.
  const authority = /^https?:\/\/([^/?#]*)/.exec(fill)?.[1] ?? "";
  const expected = parsed(`${url.protocol}//${substitute(authority)}`);
  if (!expected || expected.host !== url.host || expected.username || expected.password)
    return { refused: `its REST URL's host ${JSON.stringify(url.host)} is not the one the template makes` };
  if (tls && url.protocol !== "https:")
    return { refused: "TLS is configured for its JobManager, but its REST URL is not https" };
  return { url: filled };
}

function parsed(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
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

export interface FlinkSourceOptions {
  restUrlTemplate?: string;
  /** Whether TLS is configured for a JobManager (its URL must then be https). */
  tlsFor?: (namespace: string, labels: Record<string, string> | undefined) => boolean;
}

/**
 * Flink sources from one listing; session jobs whose deployment was not listed still get theirs.
 * A deployment whose REST URL is refused is left out, with why.
 */
export function toFlinkSources(
  deployments: readonly FlinkDeploymentResource[],
  sessionJobs: readonly FlinkSessionJobResource[],
  options: FlinkSourceOptions = {},
): { sources: DiscoveredFlinkSource[]; refused: SkippedResource[] } {
  const byKey = new Map<string, DiscoveredFlinkSource | { refused: string }>();
  const refused: SkippedResource[] = [];
  const urlFor = (
    d: FlinkDeploymentResource | undefined,
    namespace: string,
    name: string,
    labels: Record<string, string> | undefined,
  ) => restUrlOf(d, namespace, name, options.restUrlTemplate, options.tlsFor?.(namespace, labels) ?? false);
  for (const d of deployments) {
    const { name, namespace, labels } = d.metadata;
    const application = d.spec.job !== undefined;
    const rest = urlFor(d, namespace, name, labels);
    if ("refused" in rest) {
      byKey.set(`${namespace}/${name}`, rest);
      refused.push({ resource: `FlinkDeployment/${namespace}/${name}`, reason: rest.refused });
      continue;
    }
    byKey.set(`${namespace}/${name}`, {
      name: `${namespace}/${name}`,
      namespace,
      deployment: name,
      restUrl: rest.url,
      ...(labels ? { labels } : {}),
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
      const rest = urlFor(undefined, namespace, j.spec.deploymentName, undefined);
      if ("refused" in rest) {
        refused.push({ resource: `FlinkSessionJob/${namespace}/${j.metadata.name}`, reason: rest.refused });
        source = rest;
      } else
        source = {
          name: key,
          namespace,
          deployment: j.spec.deploymentName,
          restUrl: rest.url,
          mode: "session",
          jobs: [],
        };
      byKey.set(key, source);
    }
    if ("refused" in source) continue;
    source.jobs.push(jobOf(`FlinkSessionJob/${j.metadata.name}`, j.status));
  }
  const sources = [...byKey.values()].filter((s): s is DiscoveredFlinkSource => !("refused" in s));
  for (const source of sources) source.jobs.sort((a, b) => a.resource.localeCompare(b.resource));
  return { sources: sources.sort((a, b) => a.name.localeCompare(b.name)), refused };
}
