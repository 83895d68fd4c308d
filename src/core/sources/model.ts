// The source model: every Flink source, Kafka Connect cluster, catalog and Prometheus server the
// bot reads, each with its name, URL and own credentials (already resolved from the environment
// or files by config.ts). Discovery (the Flink Kubernetes Operator) yields more Flink sources of
// the same shape through a FlinkSourceProvider. Pure types and lookups: no I/O here.

import type { TableRef } from "../evidence/model.js";
import { formatTableName } from "../table-name.js";
import type { SourcesConfig } from "./config-schema.js";

type CatalogSourceConfig = SourcesConfig["catalogs"][number];

/** Where a source was declared: a single-URL environment variable, BOT_CONFIG, or discovery. */
type SourceOrigin = "env" | "config" | "discovered";

/** How an HTTP source (Flink, Connect, Prometheus) is authenticated. */
export type HttpAuth =
  | { kind: "none" }
  /** `passwordFile`/`tokenFile`: the file the secret was read from, followed when it changes. */
  | { kind: "basic"; username: string; password: string; passwordFile?: string }
  | { kind: "bearer"; token: string; tokenFile?: string };

/** How a catalog is authenticated. */
export type CatalogAuthSpec =
  | Exclude<HttpAuth, { kind: "basic" }>
  /**
   * credential is "client_id:client_secret"; tokenUrl defaults to <catalog>/v1/oauth/tokens.
   * `clientSecretFile`: where the secret was read from, followed when it changes.
   */
  | { kind: "oauth2"; credential: string; tokenUrl?: string; scope?: string; clientSecretFile?: string }
  /** AWS Signature V4 (Glue's Iceberg REST endpoint: signingName "glue"; S3 Tables: "s3tables"). */
  | { kind: "sigv4"; region: string; signingName: string };

/** Mutual TLS and private CAs: PEM text read from the files named in BOT_CONFIG. */
export interface TlsMaterial {
  cert?: string;
  key?: string;
  ca?: string;
}

export interface HttpSourceSpec {
  name: string;
  url: string;
  auth: HttpAuth;
  tls?: TlsMaterial;
  origin: SourceOrigin;
}

/** How discovered Flink sources (the operator's JobManagers) of some namespaces are reached. */
export interface DiscoveredFlinkAccess {
  namespaces: string[];
  /** Only deployments carrying these labels. */
  matchLabels?: Record<string, string>;
  auth: HttpAuth;
  tls?: TlsMaterial;
}

/** A job a discovery source already knows about (its status), before any REST call. */
interface KnownFlinkJob {
  jobId?: string;
  name?: string;
  state?: string;
}

export interface FlinkSourceSpec extends HttpSourceSpec {
  /** Jobs the source is known to run (from the operator's resource status), when discovered. */
  jobs?: KnownFlinkJob[];
}

/** A catalog as BOT_CONFIG declares it, with its secrets and TLS files read. */
export interface CatalogSourceSpec
  extends Pick<
    CatalogSourceConfig,
    "name" | "url" | "warehouse" | "prefix" | "tables" | "namespaces" | "sweep"
  > {
  auth: CatalogAuthSpec;
  tls?: TlsMaterial;
  /** Tables mapped nowhere else live here. */
  isDefault: boolean;
  origin: SourceOrigin;
}

/** Every source the configuration declares. */
export interface SourceSpecs {
  flink: FlinkSourceSpec[];
  connect: HttpSourceSpec[];
  catalogs: CatalogSourceSpec[];
  prometheus: HttpSourceSpec[];
}

/** Flink sources that come and go (the operator's deployments); asked again on each refresh. */
export interface FlinkSourceProvider {
  /** Names the provider in messages ("kubernetes"). */
  readonly name: string;
  list(): Promise<FlinkSourceSpec[]>;
}

export const EMPTY_SOURCES: SourceSpecs = { flink: [], connect: [], catalogs: [], prometheus: [] };

type Mapped = Pick<CatalogSourceSpec, "tables" | "namespaces" | "isDefault">;

/** The catalog BOT_CONFIG maps the name to (`tables`, then the longest `namespaces` prefix), if any. */
function mappedCatalog<C extends Mapped>(catalogs: readonly C[], name: string): C | undefined {
  return (
    catalogs.find((c) => c.tables.some((t) => t.toLowerCase() === name)) ?? longestNamespace(catalogs, name)
  );
}

/** The catalog with the longest mapped namespace that `name` lies under (a lower-cased dotted name). */
function longestNamespace<C extends Mapped>(catalogs: readonly C[], name: string): C | undefined {
  let best: { catalog: C; depth: number } | undefined;
  for (const catalog of catalogs) {
    for (const ns of catalog.namespaces) {
      const prefix = ns.toLowerCase();
      if (name.startsWith(`${prefix}.`)) {
        const depth = prefix.split(".").length;
        if (!best || depth > best.depth) best = { catalog, depth };
      }
    }
  }
  return best?.catalog;
}

/**
 * The catalog a table lives in: the one listing the table, else the one whose namespace is the
 * longest prefix of the table's, else the default. Names compare case-insensitively.
 */
export function catalogForTable<C extends Mapped>(
  catalogs: readonly C[],
  table: TableRef | string,
): C | undefined {
  const name = (typeof table === "string" ? table.trim() : formatTableName(table)).toLowerCase();
  return mappedCatalog(catalogs, name) ?? catalogs.find((c) => c.isDefault) ?? catalogs[0];
}

/** Where a typed or alerted name points: a catalog and the table's name in it. */
export interface CatalogPick<C> {
  catalog: C | undefined;
  /** The name to look up in that catalog (a catalog's name in front taken off). */
  table: string;
  /** The first part named this catalog (`lake-eu.sales.orders`). */
  prefixed: boolean;
  /** The first part is also the start of a name BOT_CONFIG maps as a table or namespace; the catalog won. */
  ambiguous: boolean;
  /** The first part of a name of three or more parts that names no catalog (`iceberg.sales.orders`). */
  unknownPrefix?: string;
}

/**
 * Reads `catalog.namespace.table` the way Spark and Flink do: a first part that is the name of a
 * catalog declared in BOT_CONFIG picks it, even when a namespace has that name too (put the
 * catalog's name in front of the whole name to mean the namespace). Otherwise the name is mapped
 * as it is, else without its first part (a Flink or Spark job's own catalog name, as in
 * `iceberg.sales.orders`), else it goes to the default catalog.
 */
export function pickCatalog<C extends Mapped & Pick<CatalogSourceSpec, "name" | "origin">>(
  catalogs: readonly C[],
  input: string,
): CatalogPick<C> {
  const typed = input.trim();
  const levels = typed.split(".");
  const asTyped = { table: typed, prefixed: false, ambiguous: false };
  if (levels.length < 3) return { catalog: catalogForTable(catalogs, typed), ...asTyped };
  const first = levels[0]!.toLowerCase();
  const rest = levels.slice(1).join(".");
  // The single-URL catalog's implicit name ("default") is a common namespace; only names chosen in BOT_CONFIG count.
  const named = catalogs.find((c) => c.origin !== "env" && c.name.toLowerCase() === first);
  const mapped = mappedCatalog(catalogs, typed.toLowerCase());
  if (named) return { catalog: named, table: rest, prefixed: true, ambiguous: mapped !== undefined };
  if (mapped) return { catalog: mapped, ...asTyped };
  const catalog = mappedCatalog(catalogs, rest.toLowerCase()) ?? catalogForTable(catalogs, typed);
  return { catalog, ...asTyped, unknownPrefix: levels[0]! };
}

/** Says that a name's first part names none of the catalogs, and which there are. */
export function unknownCatalogWords(prefix: string, catalogs: readonly string[]): string {
  return `"${prefix}" is not a catalog the bot reads; its catalogs are ${catalogs.join(", ")}.`;
}

/** The catalog a namespace lives in (for listings), by the same rules. */
export function catalogForNamespace<C extends Mapped>(
  catalogs: readonly C[],
  namespace: readonly string[],
): C | undefined {
  // The trailing dot makes a mapped namespace match itself as well as what lies under it.
  const name = `${namespace.join(".").toLowerCase()}.`;
  return longestNamespace(catalogs, name) ?? catalogs.find((c) => c.isDefault) ?? catalogs[0];
}
