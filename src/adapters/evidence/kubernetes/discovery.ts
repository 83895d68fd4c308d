// Flink Kubernetes Operator discovery: lists FlinkDeployments and FlinkSessionJobs in the
// configured namespaces and keeps the Flink sources they describe current, re-listing on an
// interval (jobs come and go with their deployments). A namespace that cannot be listed keeps its
// last known sources and reports why, so one missing RoleBinding does not hide every other cluster.

import type { z } from "zod";
import { ALL_NAMESPACES, accessRuleFor, type KubernetesSettings } from "../../../core/kubernetes-settings.js";
import type {
  DiscoveredFlinkAccess,
  FlinkSourceProvider,
  FlinkSourceSpec,
} from "../../../core/sources/model.js";
import { asCodedError, type CodedError } from "../../../errors.js";
import { mapLimit } from "../../../util/map-limit.js";
import { KubernetesClient, type ListResult } from "./client.js";
import {
  type InClusterOptions,
  inClusterConnection,
  type KubernetesConnection,
  kubeconfigConnection,
  type ReadText,
} from "./credentials.js";
import {
  type DiscoveredFlinkSource,
  FlinkDeploymentResource,
  FlinkSessionJobResource,
  type SkippedResource,
  toFlinkSources,
} from "./flink-resources.js";

/**
 * Flink sources from a listing, for the investigation's list of Flink sources: each JobManager's
 * REST URL (the operator's REST Service inside the cluster, or restUrlTemplate), read with the
 * auth and TLS of the first `kubernetes.flinkAccess` rule for its namespace and labels (none when
 * no rule matches), with the jobs its resources' status names.
 */
export function toSourceSpecs(
  sources: readonly DiscoveredFlinkSource[],
  rules: readonly DiscoveredFlinkAccess[] = [],
): FlinkSourceSpec[] {
  return sources.flatMap((s): FlinkSourceSpec[] => {
    const access = accessRuleFor(rules, s.namespace, s.labels);
    // Never a credential or client certificate over http (the URL was made https for a TLS rule).
    if (access?.tls && !s.restUrl.startsWith("https://")) return [];
    return [
      {
        name: s.name,
        url: s.restUrl,
        auth: access?.auth ?? { kind: "none" },
        ...(access?.tls ? { tls: access.tls } : {}),
        origin: "discovered",
        jobs: s.jobs.map((j) => ({
          ...(j.jobId ? { jobId: j.jobId } : {}),
          ...(j.jobName ? { name: j.jobName } : {}),
          ...(j.state ? { state: j.state } : {}),
        })),
      },
    ];
  });
}

export interface DiscoverySnapshot {
  sources: DiscoveredFlinkSource[];
  /** Per namespace: why it could not be listed this time (its previous sources are kept). */
  errors: { namespace: string; error: CodedError }[];
  /** Resources skipped because they do not match the CRD's shape, with why. */
  skipped: SkippedResource[];
  /** When the listing finished (ms since epoch, from the injected clock). */
  at: number;
  /** API requests this listing took. */
  requests: number;
}

export interface SourceChanges {
  added: DiscoveredFlinkSource[];
  removed: DiscoveredFlinkSource[];
  /** Sources whose URL, state or jobs changed. */
  changed: DiscoveredFlinkSource[];
}

interface DiscoveryLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface FlinkDiscoveryOptions {
  settings: KubernetesSettings;
  /** The API connection; built from settings (kubeconfig or in-cluster) when absent. */
  connection?: KubernetesConnection;
  /** For the in-cluster connection: KUBERNETES_SERVICE_HOST/PORT and the service account files. */
  inCluster?: InClusterOptions;
  readFile?: ReadText;
  timeoutMs?: number;
  now?: () => number;
  log?: DiscoveryLogger;
  /** Called after each listing that changed the sources. */
  onChange?: (changes: SourceChanges, snapshot: DiscoverySnapshot) => void;
  /** Called after every listing, changed or not. */
  onRefresh?: (snapshot: DiscoverySnapshot) => void;
}

export class FlinkDiscovery {
  /** Built at the first listing: a process that never lists never reads the credentials. */
  private built: KubernetesClient | undefined;
  private readonly now: () => number;
  private readonly byNamespace = new Map<string, DiscoveredFlinkSource[]>();
  private last: DiscoverySnapshot | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DiscoverySnapshot> | undefined;
  private stopped = false;
  private closed = false;
  private readonly loggedErrors = new Map<string, string>();
  private loggedSkips = new Set<string>();

  constructor(private readonly options: FlinkDiscoveryOptions) {
    this.now = options.now ?? Date.now;
  }

  private client(): KubernetesClient {
    const { connection, settings, inCluster = {}, readFile } = this.options;
    this.built ??= new KubernetesClient(
      connection ??
        // A kubeconfig file when the settings name one, else the pod's service account.
        (settings.kubeconfig
          ? kubeconfigConnection(settings.kubeconfig, { context: settings.context, readFile })
          : inClusterConnection({ ...inCluster, readFile: inCluster.readFile ?? readFile })),
      { timeoutMs: this.options.timeoutMs, pageSize: settings.pageSize, maxItems: settings.maxItems },
    );
    return this.built;
  }

  /** The sources as of the last listing (empty before the first). */
  sources(): DiscoveredFlinkSource[] {
    return this.last?.sources ?? [];
  }

  /**
   * The current sources as a provider the investigation asks on every listing: the last listing
   * (kept current by start()), or a listing now when none has run yet.
   */
  provider(access: readonly DiscoveredFlinkAccess[] = []): FlinkSourceProvider {
    return {
      name: "kubernetes",
      list: async () => toSourceSpecs((this.last ?? (await this.refresh())).sources, access),
    };
  }

  /** Lists now and every refreshSeconds after, until stop(). Resolves with the first listing. */
  start(): Promise<DiscoverySnapshot> {
    this.stopped = false;
    return this.refreshAndSchedule();
  }

  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    await this.built?.close();
  }

  /** One listing now (joins one already under way). Never throws: errors are in the snapshot. */
  refresh(): Promise<DiscoverySnapshot> {
    this.running ??= this.list().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async refreshAndSchedule(): Promise<DiscoverySnapshot> {
    try {
      return await this.refresh();
    } finally {
      if (!this.stopped) {
        this.timer = setTimeout(
          () =>
            void this.refreshAndSchedule().catch((error: unknown) =>
              this.options.log?.warn(
                { code: asCodedError(error).code },
                `Kubernetes discovery failed: ${asCodedError(error).message}`,
              ),
            ),
          this.options.settings.refreshSeconds * 1000,
        );
        this.timer.unref();
      }
    }
  }

  /** A problem is logged when it appears or changes, not at every refresh; a recovery once. */
  private logProblems(errors: DiscoverySnapshot["errors"], skipped: SkippedResource[]): void {
    const log = this.options.log;
    const failing = new Map(errors.map((e) => [e.namespace, e.error]));
    for (const [namespace, error] of failing) {
      if (this.loggedErrors.get(namespace) === error.message) continue;
      this.loggedErrors.set(namespace, error.message);
      log?.warn({ code: error.code, namespace, hint: error.hint }, error.message);
    }
    for (const namespace of [...this.loggedErrors.keys()]) {
      if (failing.has(namespace)) continue;
      this.loggedErrors.delete(namespace);
      log?.info({ namespace }, `Kubernetes discovery lists namespace ${namespace} again`);
    }
    const now = new Set<string>();
    for (const s of skipped) {
      const line = `Kubernetes discovery skipped ${s.resource}: ${s.reason}`;
      now.add(line);
      if (!this.loggedSkips.has(line)) log?.warn({ resource: s.resource }, line);
    }
    this.loggedSkips = now;
  }

  private async list(): Promise<DiscoverySnapshot> {
    const errors: DiscoverySnapshot["errors"] = [];
    const skipped: SkippedResource[] = [];
    let requests = 0;
    const { settings } = this.options;
    const tlsFor = (namespace: string, labels: Record<string, string> | undefined) =>
      accessRuleFor(settings.flinkAccess, namespace, labels)?.tls !== undefined;
    // Credentials that cannot be read fail every namespace alike.
    const built = new Promise<KubernetesClient>((resolve) => resolve(this.client()));
    built.catch(() => {});
    await mapLimit(settings.namespaces, CONCURRENT_NAMESPACES, async (namespace) => {
      try {
        const client = await built;
        const settled = await Promise.allSettled([
          client.list("flinkdeployments", namespace),
          client.list("flinksessionjobs", namespace),
        ]);
        // The first failure in this order, whichever answered first: the same message every time.
        for (const result of settled) if (result.status === "rejected") throw result.reason;
        const [deployments, sessionJobs] = settled.map(
          (r) => (r as PromiseFulfilledResult<ListResult>).value,
        ) as [ListResult, ListResult];
        requests += deployments.requests + sessionJobs.requests;
        const listed = toFlinkSources(
          parseListed(FlinkDeploymentResource, "FlinkDeployment", namespace, deployments.items, skipped),
          parseListed(FlinkSessionJobResource, "FlinkSessionJob", namespace, sessionJobs.items, skipped),
          { restUrlTemplate: settings.restUrlTemplate, tlsFor },
        );
        skipped.push(...listed.refused);
        this.byNamespace.set(namespace, listed.sources);
      } catch (error) {
        errors.push({ namespace, error: asCodedError(error) });
      }
    });
    const sources = [...this.byNamespace.values()].flat().sort((a, b) => a.name.localeCompare(b.name));
    const snapshot: DiscoverySnapshot = { sources, errors, skipped, at: this.now(), requests };
    const changes = diffSources(this.last?.sources ?? [], sources);
    this.last = snapshot;
    errors.sort((a, b) => a.namespace.localeCompare(b.namespace));
    this.logProblems(errors, skipped);
    if (changes.added.length + changes.removed.length + changes.changed.length > 0) {
      this.options.log?.info(
        {
          added: changes.added.map((s) => s.name),
          removed: changes.removed.map((s) => s.name),
          changed: changes.changed.map((s) => s.name),
        },
        "Flink sources discovered in Kubernetes changed",
      );
      this.options.onChange?.(changes, snapshot);
    }
    this.options.onRefresh?.(snapshot);
    return snapshot;
  }
}

/** Namespaces listed at once: many namespaces must not become a burst on the API server. */
const CONCURRENT_NAMESPACES = 4;

/** The items that match the CRD's shape; the others go to `skipped` with why. */
function parseListed<S extends z.ZodType>(
  schema: S,
  kind: string,
  namespace: string,
  items: unknown[],
  skipped: SkippedResource[],
): z.output<S>[] {
  return items.flatMap((item) => {
    const result = schema.safeParse(item);
    const skip = (reason: string) => {
      skipped.push({ resource: `${kind}/${nameOf(item)}`, reason });
      return [];
    };
    if (!result.success) {
      const issue = result.error.issues[0];
      return skip(`${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
    }
    // An item claiming another namespace than the one listed would take that one's credentials.
    const claimed = (result.data as { metadata: { namespace: string } }).metadata.namespace;
    if (namespace === ALL_NAMESPACES || claimed === namespace) return [result.data];
    return skip(`listed in namespace ${namespace} but names namespace ${claimed}`);
  });
}

function nameOf(item: unknown): string {
  const meta = (item as { metadata?: { name?: unknown; namespace?: unknown } } | undefined)?.metadata;
  return typeof meta?.name === "string" ? `${meta.namespace ?? "?"}/${meta.name}` : "(unnamed)";
}

function diffSources(
  before: readonly DiscoveredFlinkSource[],
  after: readonly DiscoveredFlinkSource[],
): SourceChanges {
  const old = new Map(before.map((s) => [s.name, s]));
  const now = new Map(after.map((s) => [s.name, s]));
  return {
    added: after.filter((s) => !old.has(s.name)),
    removed: before.filter((s) => !now.has(s.name)),
    changed: after.filter((s) => old.has(s.name) && JSON.stringify(old.get(s.name)) !== JSON.stringify(s)),
  };
}
