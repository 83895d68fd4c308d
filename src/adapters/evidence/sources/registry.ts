// Many named sources behind the one port of each kind the services read: every Flink source's
// jobs listed in parallel (each job tagged with its source, requests routed back to it), every
// Connect cluster's connectors likewise, and catalogs routed by the table they hold. A source
// that fails is left out of a listing as long as another answers; Flink sources from discovery
// (FlinkSourceProvider) are asked again on every listing, so jobs that come and go are followed.

import type { FlinkJobSummary, SourceGap, TableRef } from "../../../core/evidence/model.js";
import type { SourceName } from "../../../core/ids.js";
import {
  type CatalogSourceSpec,
  catalogForNamespace,
  catalogForTable,
  type FlinkSourceProvider,
  type FlinkSourceSpec,
  pickCatalog,
} from "../../../core/sources/model.js";
import { asCodedError, CodedError, ErrorCode } from "../../../errors.js";
import { withDeadline } from "../../../services/investigate/deadline.js";
import type {
  CatalogDirectory,
  CatalogPort,
  ConnectorInfo,
  ConnectPort,
  FlinkPort,
  Listing,
  Named,
  PrometheusPort,
} from "../../../services/ports.js";
import { mapLimit } from "../../../util/map-limit.js";

/**
 * Tags results with the source name only when names mean something to the reader: a source
 * declared in BOT_CONFIG or discovered, or several sources of the kind.
 */
function shouldTag(specs: readonly { origin: string }[]): boolean {
  return specs.length > 1 || specs.some((s) => s.origin !== "env");
}

/**
 * Lists from every source, at most `limit` at once, each within `bound` when there are several
 * (a lone source keeps the caller's whole deadline). Fails only
 * when every source fails (with the first error); when some fail, the listing holds what the rest
 * said and names the silent ones as gaps.
 */
async function fromEvery<P, T>(
  sources: readonly Named<P>[],
  listOne: (source: Named<P>) => Promise<T[]>,
  limit = Number.POSITIVE_INFINITY,
  bound?: { kind: SourceName; withinMs: number | undefined },
): Promise<Listing<T>> {
  const run = (source: Named<P>) =>
    bound?.withinMs === undefined || sources.length < 2
      ? listOne(source)
      : withDeadline(bound.kind, bound.withinMs, () => listOne(source));
  const settled = await mapLimit(sources, limit, (source) =>
    run(source).then(
      (value): PromiseSettledResult<T[]> => ({ status: "fulfilled", value }),
      (reason): PromiseSettledResult<T[]> => ({ status: "rejected", reason }),
    ),
  );
  const ok = settled.filter((s): s is PromiseFulfilledResult<T[]> => s.status === "fulfilled");
  if (ok.length === 0 && settled.length > 0) throw (settled[0] as PromiseRejectedResult).reason;
  const listing: Listing<T> = ok.flatMap((s) => s.value);
  const gaps = settled.flatMap((s, i): SourceGap[] =>
    s.status === "rejected"
      ? [{ source: sources[i]?.name ?? "?", error: asCodedError(s.reason).message }]
      : [],
  );
  if (gaps.length > 0) listing.gaps = gaps;
  return listing;
}

export interface CompositeFlinkOptions {
  /** Most JobManagers one listing calls at once (discovery may find hundreds). */
  concurrency?: number;
  /** Told the sources of each listing, so clients of sources that are gone can be let go. */
  retain?: (live: readonly FlinkSourceSpec[]) => void;
}

export function createCompositeFlink(
  staticSources: readonly FlinkSourceSpec[],
  providers: readonly FlinkSourceProvider[],
  portFor: (spec: FlinkSourceSpec) => FlinkPort,
  options: CompositeFlinkOptions = {},
): FlinkPort {
  /** Which sources listed each job id last time (ids may repeat across application clusters). */
  let located = new Map<string, string[]>();
  let current: Named<FlinkPort>[] = [];
  let tag = shouldTag(staticSources) || providers.length > 0;

  async function sources(): Promise<Named<FlinkPort>[]> {
    const discovered = await Promise.all(providers.map((p) => p.list().catch(() => [] as FlinkSourceSpec[])));
    const specs = [...staticSources, ...discovered.flat()];
    const seen = new Set<string>();
    const unique = specs.filter((s) => !seen.has(s.name) && seen.add(s.name));
    tag = shouldTag(unique) || providers.length > 0;
    current = unique.map((spec) => ({ name: spec.name, port: portFor(spec) }));
    options.retain?.(unique);
    return current;
  }

  return {
    async listJobs(withinMs) {
      const next = new Map<string, string[]>();
      const jobs = await fromEvery(
        await sources(),
        async (s) => {
          const listed = await s.port.listJobs();
          for (const job of listed) next.set(job.jobId, [...(next.get(job.jobId) ?? []), s.name]);
          return listed.map((job): FlinkJobSummary => (tag ? { ...job, source: s.name } : job));
        },
        options.concurrency,
        { kind: "flink", withinMs },
      );
      located = next;
      return jobs;
    },
    async getJobEvidence(jobId: string, table: TableRef, source?: string) {
      if (current.length === 0) await sources();
      const name = source ?? located.get(jobId)?.[0];
      const target = name
        ? current.find((s) => s.name === name)
        : current.length === 1
          ? current[0]
          : undefined;
      if (!target) {
        // Not listed by any source: ask each until one knows it.
        for (const s of current) {
          try {
            return withSource(await s.port.getJobEvidence(jobId, table), s.name, tag);
          } catch {}
        }
        throw new CodedError(ErrorCode.SourceHttpStatus, `No Flink source knows job ${jobId}`, {
          hint: "The job may have ended or been redeployed under a new id.",
          details: { status: 404, jobId },
        });
      }
      return withSource(await target.port.getJobEvidence(jobId, table), target.name, tag);
    },
  };
}

function withSource<T extends { job: FlinkJobSummary }>(evidence: T, source: string, tag: boolean): T {
  return tag ? { ...evidence, job: { ...evidence.job, source } } : evidence;
}

export function createCompositeConnect(clusters: readonly Named<ConnectPort>[]): ConnectPort {
  const byName = (cluster: string | undefined) => {
    if (cluster === undefined) return undefined;
    const found = clusters.find((c) => c.name === cluster);
    if (!found)
      throw new CodedError(ErrorCode.ConfigInvalid, `No Kafka Connect cluster is named ${cluster}`, {
        hint: `Known clusters: ${clusters.map((c) => c.name).join(", ")}.`,
      });
    return found;
  };
  /** Where a connector lives when no cluster is named: the first cluster listing it. */
  let located = new Map<string, string>();
  const locate = async (name: string, cluster?: string): Promise<Named<ConnectPort>> => {
    const named = byName(cluster);
    if (named) return named;
    if (clusters.length === 1) return clusters[0] as Named<ConnectPort>;
    if (!located.has(name)) await list();
    return byName(located.get(name)) ?? (clusters[0] as Named<ConnectPort>);
  };
  const tagged = <T extends object>(value: T, cluster: string) => ({ ...value, cluster });

  async function list(withinMs?: number): Promise<Listing<ConnectorInfo>> {
    const next = new Map<string, string>();
    const all = await fromEvery(
      clusters,
      async (c) => {
        const listed = await c.port.listConnectors();
        for (const info of listed) if (!next.has(info.name)) next.set(info.name, c.name);
        return listed.map((info) => tagged(info, c.name));
      },
      Number.POSITIVE_INFINITY,
      { kind: "connect", withinMs },
    );
    located = next;
    return all;
  }

  return {
    listConnectors: list,
    async getConnectorEvidence(name, cluster) {
      const target = await locate(name, cluster);
      return tagged(await target.port.getConnectorEvidence(name), target.name);
    },
    async restart(name, options, cluster) {
      return (await locate(name, cluster)).port.restart(name, options);
    },
    async updateConfig(name, config, cluster) {
      return (await locate(name, cluster)).port.updateConfig(name, config);
    },
  };
}

/**
 * Catalogs by name, and one CatalogPort that sends each table (and namespace) to the catalog
 * holding it; a whole-catalog listing without a namespace goes to the default catalog.
 */
export function createCatalogDirectory(
  specs: readonly CatalogSourceSpec[],
  portFor: (spec: CatalogSourceSpec) => CatalogPort,
): { directory: CatalogDirectory; routed: CatalogPort } {
  const entries = specs.map((spec) => ({ ...spec, port: portFor(spec) }));
  const named = (e: (typeof entries)[number] | undefined): Named<CatalogPort> | undefined =>
    e ? { name: e.name, port: e.port } : undefined;
  const directory: CatalogDirectory = {
    all: entries.map((e) => ({ name: e.name, port: e.port })),
    forTable: (table) => named(catalogForTable(entries, table)),
    byName: (name) => named(entries.find((e) => e.name === name)),
    pick: (input) => {
      const { catalog, ...rest } = pickCatalog(entries, input);
      return catalog ? { name: catalog.name, port: catalog.port, ...rest } : undefined;
    },
  };
  const fallback = entries.find((e) => e.isDefault) ?? entries[0];
  const forTable = (ref: TableRef) => (catalogForTable(entries, ref) ?? fallback)!.port;
  const forNamespace = (ns: readonly string[] | undefined) =>
    (ns && ns.length > 0 ? (catalogForNamespace(entries, ns) ?? fallback) : fallback)!.port;
  const routed: CatalogPort = {
    url: fallback?.port.url,
    getConfig: () => forNamespace(undefined).getConfig(),
    listNamespaces: (parent) => forNamespace(parent).listNamespaces(parent),
    listTables: (namespace) => forNamespace(namespace).listTables(namespace),
    listNamespacesPage: (parent, token) => forNamespace(parent).listNamespacesPage(parent, token),
    listTablesPage: (namespace, token) => forNamespace(namespace).listTablesPage(namespace, token),
    loadTable: (ref) => forTable(ref).loadTable(ref),
    commitProperties: (ref, commit) => forTable(ref).commitProperties(ref, commit),
  };
  return { directory, routed };
}

export function createCompositePrometheus(servers: readonly Named<PrometheusPort>[]): PrometheusPort {
  return {
    query: (promql, atMs) => fromEvery(servers, (s) => s.port.query(promql, atMs)),
    queryRange: (promql, startMs, endMs, step) =>
      fromEvery(servers, (s) => s.port.queryRange(promql, startMs, endMs, step)),
  };
}
