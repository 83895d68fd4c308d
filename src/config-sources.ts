// Turns BOT_CONFIG's `sources:` section and the single-URL variables into the source model:
// each secret is read from the environment variable or file it names (the environment is the
// one config.ts hands over), and every problem names its file:line and what to do.

import type { FlinkAccessRule } from "./core/kubernetes-settings.js";
import type { SourcesConfig, TlsConfig } from "./core/sources/config-schema.js";
import type {
  CatalogAuthSpec,
  CatalogSourceSpec,
  DiscoveredFlinkAccess,
  HttpAuth,
  SourceSpecs,
  TlsMaterial,
} from "./core/sources/model.js";
import { refusalOf } from "./util/read-small-file.js";

/** The name the single-URL variables' sources go by. */
const DEFAULT_SOURCE_NAME = "default";

export interface SingleUrlSources {
  flinkUrl?: string;
  connectUrl?: string;
  prometheusUrl?: string;
  catalog?: Omit<CatalogSourceSpec, "name" | "tables" | "namespaces" | "isDefault" | "sweep" | "origin">;
}

export interface ResolveContext {
  env: Record<string, string | undefined>;
  readFile?: (path: string) => string;
  /** "file:line" of a key in BOT_CONFIG. */
  where: (path: readonly (string | number)[]) => string;
  problems: string[];
}

export function resolveSources(
  raw: SourcesConfig,
  single: SingleUrlSources,
  ctx: ResolveContext,
): SourceSpecs {
  /** What every named source has; "default" is the single-URL variable's name when it is set. */
  const named = <A>(
    kind: keyof SourcesConfig,
    i: number,
    variable: string | undefined,
    auth: (path: (string | number)[]) => A,
  ) => {
    const source = raw[kind][i]!;
    const path = ["sources", kind, i];
    if (variable && source.name === DEFAULT_SOURCE_NAME)
      problem(ctx, [...path, "name"], `the name "default" is taken by ${variable}; choose another name`);
    const spec = {
      name: source.name,
      url: source.url,
      auth: auth([...path, "auth"]),
      origin: "config" as const,
    };
    const tls = readTls(source.tls, [...path, "tls"], ctx);
    return tls ? { ...spec, tls } : spec;
  };
  const http = (kind: "flink" | "connect" | "prometheus", url: string | undefined, variable: string) => [
    ...(url
      ? [{ name: DEFAULT_SOURCE_NAME, url, auth: { kind: "none" as const }, origin: "env" as const }]
      : []),
    ...raw[kind].map((source, i) =>
      named(kind, i, url && variable, (path) => httpAuth(source.auth, path, ctx)),
    ),
  ];

  const catalogs: CatalogSourceSpec[] = [];
  const configuredDefault = raw.catalogs.find((c) => c.default);
  if (single.catalog) {
    catalogs.push({
      ...single.catalog,
      name: DEFAULT_SOURCE_NAME,
      tables: [],
      namespaces: [],
      isDefault: true,
      sweep: true,
      origin: "env",
    });
    if (configuredDefault)
      problem(
        ctx,
        ["sources", "catalogs", raw.catalogs.indexOf(configuredDefault), "default"],
        `ICEBERG_CATALOG_URL is already the default catalog; remove default: true from ${configuredDefault.name} or unset ICEBERG_CATALOG_URL`,
      );
  }
  raw.catalogs.forEach((source, i) => {
    const variable = single.catalog && "ICEBERG_CATALOG_URL";
    catalogs.push({
      ...named("catalogs", i, variable, (path) => catalogAuth(source.auth, path, ctx)),
      tables: source.tables,
      namespaces: source.namespaces,
      // With no catalog marked default and none from the environment, the first one listed is.
      isDefault: source.default || (!single.catalog && !configuredDefault && i === 0),
      sweep: source.sweep,
      ...(source.warehouse ? { warehouse: source.warehouse } : {}),
      ...(source.prefix ? { prefix: source.prefix } : {}),
    });
  });

  return {
    flink: http("flink", single.flinkUrl, "FLINK_REST_URL"),
    connect: http("connect", single.connectUrl, "CONNECT_REST_URL"),
    prometheus: http("prometheus", single.prometheusUrl, "PROMETHEUS_URL"),
    catalogs,
  };
}

/**
 * The auth and TLS of the JobManagers discovered in Kubernetes, per namespace (and label), as
 * `kubernetes.flinkAccess` gives them, resolved as a named source's are.
 */
export function resolveDiscoveredFlinkAccess(
  raw: { flinkAccess: readonly FlinkAccessRule[] },
  ctx: ResolveContext,
): DiscoveredFlinkAccess[] {
  return raw.flinkAccess.map((rule, i) => {
    const path = ["kubernetes", "flinkAccess", i];
    const access: DiscoveredFlinkAccess = {
      namespaces: [...rule.namespaces],
      ...(rule.matchLabels ? { matchLabels: { ...rule.matchLabels } } : {}),
      auth: httpAuth(rule.auth, [...path, "auth"], ctx),
    };
    const tls = readTls(rule.tls, [...path, "tls"], ctx);
    if (tls) access.tls = tls;
    return access;
  });
}

type RawHttpAuth = NonNullable<SourcesConfig["flink"][number]["auth"]>;
type RawCatalogAuth = NonNullable<SourcesConfig["catalogs"][number]["auth"]>;

function httpAuth(auth: RawHttpAuth | undefined, path: (string | number)[], ctx: ResolveContext): HttpAuth {
  if (!auth || auth.type === "none") return { kind: "none" };
  if (auth.type === "basic")
    return {
      kind: "basic",
      username: auth.username,
      password: secret(auth.passwordEnv, auth.passwordFile, "password", path, ctx),
      ...followed("passwordFile", auth.passwordFile),
    };
  return {
    kind: "bearer",
    token: secret(auth.tokenEnv, auth.tokenFile, "token", path, ctx),
    ...followed("tokenFile", auth.tokenFile),
  };
}

/** The file a secret came from, kept so the adapters follow it when it is rotated. */
function followed<K extends string>(key: K, file: string | undefined): { [P in K]?: string } {
  return (file === undefined ? {} : { [key]: file }) as { [P in K]?: string };
}

function catalogAuth(
  auth: RawCatalogAuth | undefined,
  path: (string | number)[],
  ctx: ResolveContext,
): CatalogAuthSpec {
  switch (auth?.type) {
    case "oauth2": {
      const clientSecret = secret(auth.clientSecretEnv, auth.clientSecretFile, "clientSecret", path, ctx);
      return {
        kind: "oauth2",
        credential: `${auth.clientId}:${clientSecret}`,
        ...(auth.tokenUrl ? { tokenUrl: auth.tokenUrl } : {}),
        ...(auth.scope ? { scope: auth.scope } : {}),
        ...followed("clientSecretFile", auth.clientSecretFile),
      };
    }
    case "sigv4": {
      const region = auth.region ?? ctx.env.AWS_REGION?.trim() ?? ctx.env.AWS_DEFAULT_REGION?.trim();
      if (!region) problem(ctx, path, "sigv4 needs a region: set region: here or AWS_REGION");
      return { kind: "sigv4", region: region ?? "", signingName: auth.signingName };
    }
    default:
      // none or bearer: a catalog takes no basic auth.
      return httpAuth(auth, path, ctx) as CatalogAuthSpec;
  }
}

/** The secret in the named variable or file; a problem (never the value) when it is missing. */
function secret(
  envName: string | undefined,
  file: string | undefined,
  key: string,
  path: (string | number)[],
  ctx: ResolveContext,
): string {
  if (envName !== undefined) {
    const value = ctx.env[envName]?.trim();
    if (!value)
      problem(ctx, [...path, `${key}Env`], `the environment variable ${envName} is not set or empty`);
    return value ?? "";
  }
  const value = readNamed(file ?? "", [...path, `${key}File`], ctx)?.trim();
  if (value === "") problem(ctx, [...path, `${key}File`], `the file ${file} is empty`);
  return value ?? "";
}

function readTls(tls: TlsConfig | undefined, path: (string | number)[], ctx: ResolveContext) {
  if (!tls) return undefined;
  const out: TlsMaterial = {};
  if (tls.certFile) out.cert = readNamed(tls.certFile, [...path, "certFile"], ctx);
  if (tls.keyFile) out.key = readNamed(tls.keyFile, [...path, "keyFile"], ctx);
  if (tls.caFile) out.ca = readNamed(tls.caFile, [...path, "caFile"], ctx);
  return out;
}

function readNamed(file: string, path: (string | number)[], ctx: ResolveContext): string | undefined {
  if (!ctx.readFile) {
    problem(ctx, path, `names a file (${file}) but no file reader was given`);
    return undefined;
  }
  try {
    return ctx.readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problem(
      ctx,
      path,
      refusalOf(error) ??
        `cannot read ${file}${code ? ` (${code})` : ""}: check the path and its permissions`,
    );
    return undefined;
  }
}

function problem(ctx: ResolveContext, path: readonly (string | number)[], message: string): void {
  ctx.problems.push(`${path.join(".")}: ${message} (at ${ctx.where(path)})`);
}
