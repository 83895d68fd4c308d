// The only reader of the environment. Everything is parsed with zod from an injected env, every
// problem is reported at once, and the result is frozen. Secrets never leave through toJSON,
// logs or error messages: use redactConfig() when printing.

import { createRequire } from "node:module";
import { z } from "zod";
import { resolveDiscoveredFlinkAccess, resolveSources } from "./config-sources.js";
import {
  type BotConfig,
  BotConfigProblems,
  BotConfigSchema,
  parseBotConfigWithLines,
} from "./core/settings.js";
import { sourceUrl } from "./core/sources/config-schema.js";
import { type DiscoveredFlinkAccess, EMPTY_SOURCES, type SourceSpecs } from "./core/sources/model.js";
import type { YamlApi } from "./core/yaml-lines.js";
import { CodedError, ErrorCode } from "./errors.js";
import { DEFAULT_REDIS_URL, parseRedisUrl, type RedisTopology, topologySecrets } from "./redis-url.js";
import { slackTokenProblems } from "./token-kinds.js";
import { secretFileValues } from "./util/secret-file.js";
import { scrubAllForms } from "./util/secret-forms.js";

// Tests and the command line build settings through here; services import them from the core.
export { type BotConfig, BotConfigSchema, tableSettings } from "./core/settings.js";

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

/** Compose passes `${VAR:-}` as an empty string: empty means unset, so the default applies. */
const emptyAsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" && value.trim() === "" ? undefined : value), schema);

/** The new token and the old one, both accepted until every sender has the new one. */
const MAX_WEBHOOK_TOKENS = 2;

const optionalUrl = optionalText.pipe(z.url({ protocol: /^https?$/ }).optional());

/** Where a single-URL source's credentials go instead of its URL: a named source with auth. */
const ENV_SOURCE_AUTH = (kind: string) =>
  `a named source in BOT_CONFIG (sources.${kind}: [{name, url, auth: {type: basic, username, passwordEnv}}])`;

const EnvSchema = z.object({
  SLACK_BOT_TOKEN: optionalText,
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText,
  SLACK_API_URL: optionalUrl,
  REDIS_URL: emptyAsUnset(
    z
      .string()
      .trim()
      .default(DEFAULT_REDIS_URL)
      .superRefine((value, ctx) => {
        try {
          parseRedisUrl(value);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
        }
      }),
  ),
  ICEBERG_CATALOG_URL: optionalText.pipe(
    sourceUrl("ICEBERG_CATALOG_TOKEN or ICEBERG_CATALOG_CREDENTIAL").optional(),
  ),
  ICEBERG_CATALOG_TOKEN: optionalText,
  ICEBERG_CATALOG_CREDENTIAL: optionalText.pipe(
    z
      .string()
      .regex(/^[^:]+:.+$/, "client_id:client_secret")
      .optional(),
  ),
  ICEBERG_CATALOG_OAUTH_URI: optionalUrl,
  ICEBERG_CATALOG_SCOPE: optionalText,
  ICEBERG_WAREHOUSE: optionalText,
  FLINK_REST_URL: optionalText.pipe(sourceUrl(ENV_SOURCE_AUTH("flink")).optional()),
  CONNECT_REST_URL: optionalText.pipe(sourceUrl(ENV_SOURCE_AUTH("connect")).optional()),
  PROMETHEUS_URL: optionalText.pipe(sourceUrl(ENV_SOURCE_AUTH("prometheus")).optional()),
  /** One token, or two separated by a comma while the senders are moved to a new one. */
  ALERT_WEBHOOK_TOKEN: optionalText.pipe(
    z
      .string()
      .transform((value) => value.split(",").map((token) => token.trim()))
      .refine((tokens) => tokens.length <= MAX_WEBHOOK_TOKENS && tokens.every((t) => t !== ""), {
        message: `one token, or ${MAX_WEBHOOK_TOKENS} separated by a comma during a rotation (new,old)`,
      })
      .optional(),
  ),
  BOT_CONFIG: optionalText,
  PORT: emptyAsUnset(z.coerce.number().int().min(0).max(65_535).default(3000)),
  /** Where a worker serves /healthz, /readyz and /metrics (receivers use PORT). */
  METRICS_PORT: emptyAsUnset(z.coerce.number().int().min(0).max(65_535).default(9464)),
  INCIDENT_CHANNEL: optionalText,
  SOURCE_TIMEOUT_MS: emptyAsUnset(z.coerce.number().int().min(100).max(120_000).default(5000)),
  LOG_LEVEL: emptyAsUnset(
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
});

/**
 * The standard AWS variables SigV4-signed catalogs take their credentials from (in this order:
 * static keys, a web identity token file, container credentials). Read only when a catalog signs.
 */
const AwsEnvSchema = z
  .object({
    AWS_ACCESS_KEY_ID: optionalText,
    AWS_SECRET_ACCESS_KEY: optionalText,
    AWS_SESSION_TOKEN: optionalText,
    AWS_REGION: optionalText,
    AWS_DEFAULT_REGION: optionalText,
    AWS_WEB_IDENTITY_TOKEN_FILE: optionalText,
    AWS_ROLE_ARN: optionalText,
    AWS_ROLE_SESSION_NAME: optionalText,
    /** Where AssumeRoleWithWebIdentity is sent (default https://sts.<region>.amazonaws.com). */
    AWS_ENDPOINT_URL_STS: optionalUrl,
    AWS_CONTAINER_CREDENTIALS_FULL_URI: optionalUrl,
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: optionalText,
    AWS_CONTAINER_AUTHORIZATION_TOKEN: optionalText,
    AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: optionalText,
  })
  .transform((e) => {
    const out = {
      accessKeyId: e.AWS_ACCESS_KEY_ID,
      secretAccessKey: e.AWS_SECRET_ACCESS_KEY,
      sessionToken: e.AWS_SESSION_TOKEN,
      region: e.AWS_REGION ?? e.AWS_DEFAULT_REGION,
      webIdentityTokenFile: e.AWS_WEB_IDENTITY_TOKEN_FILE,
      roleArn: e.AWS_ROLE_ARN,
      roleSessionName: e.AWS_ROLE_SESSION_NAME,
      stsEndpoint: e.AWS_ENDPOINT_URL_STS,
      containerFullUri: e.AWS_CONTAINER_CREDENTIALS_FULL_URI,
      containerRelativeUri: e.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI,
      containerAuthToken: e.AWS_CONTAINER_AUTHORIZATION_TOKEN,
      containerAuthTokenFile: e.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE,
    };
    for (const key of Object.keys(out) as (keyof typeof out)[]) if (out[key] === undefined) delete out[key];
    return out as Partial<typeof out>;
  });

export type AwsEnv = z.output<typeof AwsEnvSchema>;

/** Every environment variable the bot reads (deployment manifests are checked against this). */
export const ENV_NAMES = Object.keys(EnvSchema.shape) as ReadonlyArray<keyof typeof EnvSchema.shape>;

/**
 * Set by Kubernetes itself in every pod (never by our manifests): where the in-cluster API server
 * is, for Flink Kubernetes Operator discovery with the pod's service account.
 */
const PlatformEnvSchema = z.object({
  KUBERNETES_SERVICE_HOST: optionalText,
  KUBERNETES_SERVICE_PORT: emptyAsUnset(z.coerce.number().int().min(1).max(65_535).optional()),
});
export const PLATFORM_ENV_NAMES = Object.keys(PlatformEnvSchema.shape);

export interface Config {
  slack: {
    botToken?: string;
    signingSecret?: string;
    appToken?: string;
    apiUrl?: string;
    /** "socket" when an app token is set, "http" otherwise. */
    mode: "socket" | "http";
  };
  redisUrl: string;
  /** REDIS_URL parsed: standalone, Sentinel or Cluster (see README, Running in production). */
  redis: RedisTopology;
  catalog: {
    url?: string;
    token?: string;
    credential?: string;
    oauthUri?: string;
    scope: string;
    warehouse?: string;
  };
  flinkUrl?: string;
  connectUrl?: string;
  prometheusUrl?: string;
  /** The tokens an alert webhook may present: one, or the new and the old during a rotation. */
  alertWebhookTokens: string[];
  bot: BotConfig;
  /** "file:line" of each autopilot policy line in BOT_CONFIG, by name (for the thread's announcement). */
  autopilotLines?: Record<string, string>;
  /** The in-cluster Kubernetes API (from the pod's environment); absent outside Kubernetes. */
  kubernetesService?: { host: string; port: number };
  /**
   * Every named source: BOT_CONFIG's `sources:` plus the single-URL variables' (named
   * "default"), with secrets read from the variables and files they name.
   */
  sources: SourceSpecs;
  /** The auth and TLS of every JobManager Kubernetes discovery finds (with a kubernetes section). */
  discoveredFlink?: DiscoveredFlinkAccess[];
  aws: AwsEnv;
  port: number;
  metricsPort: number;
  incidentChannel?: string;
  sourceTimeoutMs: number;
  logLevel: z.infer<typeof EnvSchema>["LOG_LEVEL"];
}

export type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** Reads BOT_CONFIG when it names a file; injected so the config stays testable. */
  readFile?: (path: string) => string;
}

/**
 * Everything loadConfig finds in one pass, without throwing: every problem (variables, BOT_CONFIG
 * with its lines, the variables and files it names), the settings that did parse, and the sources
 * as far as they resolved (`iceberg-bot config check` probes them). `config` is set only when
 * there is no problem.
 */
export interface ConfigInspection {
  problems: string[];
  bot: BotConfig;
  /** "file:line" of each autopilot policy line, by name (also when other settings are wrong). */
  autopilotLines: Record<string, string>;
  sources: SourceSpecs;
  config?: Readonly<Config>;
}

export function loadConfig(env: Env = process.env, options: LoadConfigOptions = {}): Readonly<Config> {
  const inspection = inspectConfig(env, options);
  if (inspection.config) return inspection.config;
  const { problems } = inspection;
  throw new CodedError(ErrorCode.ConfigInvalid, `Invalid configuration:\n  - ${problems.join("\n  - ")}`, {
    hint: "Fix the settings listed above (see README, Configuration) and start again.",
    details: { problems },
  });
}

export function inspectConfig(env: Env = process.env, options: LoadConfigOptions = {}): ConfigInspection {
  const problems: string[] = [];
  const parsed = EnvSchema.safeParse(env);
  const platform = PlatformEnvSchema.safeParse(env);
  for (const result of [parsed, platform]) {
    if (result.success) continue;
    for (const issue of result.error.issues) {
      problems.push(`${issue.path.join(".")}: ${issue.message}`);
    }
  }

  let bot: BotConfig = BotConfigSchema.parse({});
  let where = (path: readonly (string | number)[]) => `BOT_CONFIG (${path.join(".")})`;
  const rawBotConfig = env.BOT_CONFIG?.trim();
  if (rawBotConfig) {
    try {
      ({ config: bot, where } = parseBotConfigLocated(rawBotConfig, options.readFile));
    } catch (error) {
      if (error instanceof BotConfigProblems) {
        // Each problem on its own line; what did parse is still checked below, in this pass.
        problems.push(...error.problems.map((p) => `BOT_CONFIG: ${p}`));
        bot = error.partial;
        where = error.where;
      } else problems.push(`BOT_CONFIG: ${(error as Error).message}`);
    }
  }
  const aws = AwsEnvSchema.safeParse(env);
  if (!aws.success)
    for (const issue of aws.error.issues) problems.push(`${issue.path.join(".")}: ${issue.message}`);
  let sources: SourceSpecs = EMPTY_SOURCES;
  let discoveredFlink: DiscoveredFlinkAccess[] | undefined;
  if (parsed.success) {
    const e = parsed.data;
    const catalog = envCatalog(e);
    const sourceProblems: string[] = [];
    sources = resolveSources(
      bot.sources,
      {
        flinkUrl: e.FLINK_REST_URL,
        connectUrl: e.CONNECT_REST_URL,
        prometheusUrl: e.PROMETHEUS_URL,
        ...(e.ICEBERG_CATALOG_URL
          ? {
              catalog: {
                url: e.ICEBERG_CATALOG_URL,
                auth: envCatalogAuth(catalog),
                ...(e.ICEBERG_WAREHOUSE ? { warehouse: e.ICEBERG_WAREHOUSE } : {}),
              },
            }
          : {}),
      },
      { env, readFile: options.readFile, where, problems: sourceProblems },
    );
    if (bot.kubernetes)
      discoveredFlink = resolveDiscoveredFlinkAccess(bot.kubernetes, {
        env,
        readFile: options.readFile,
        where,
        problems: sourceProblems,
      });
    const known = new Set(sources.catalogs.map((c) => c.name));
    bot.sweep.catalogs.forEach((name, i) => {
      if (!known.has(name))
        sourceProblems.push(
          `sweep.catalogs.${i}: no catalog is named ${name} (known: ${[...known].join(", ") || "none"}) (at ${where(["sweep", "catalogs", i])})`,
        );
    });
    problems.push(...sourceProblems.map((p) => `BOT_CONFIG: ${p}`));
  }

  problems.push(...slackTokenProblems(env));

  const autopilotLines = Object.fromEntries(
    bot.autopilot.policies.map((p, i) => [p.name, where(["autopilot", "policies", i])]),
  );
  if (problems.length > 0 || !parsed.success || !platform.success)
    return { problems, bot, autopilotLines, sources };
  const e = parsed.data;
  const config: Config = {
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      mode: e.SLACK_APP_TOKEN ? "socket" : "http",
    },
    redisUrl: e.REDIS_URL,
    redis: parseRedisUrl(e.REDIS_URL),
    catalog: envCatalog(e),
    flinkUrl: e.FLINK_REST_URL,
    connectUrl: e.CONNECT_REST_URL,
    prometheusUrl: e.PROMETHEUS_URL,
    alertWebhookTokens: e.ALERT_WEBHOOK_TOKEN ?? [],
    bot,
    autopilotLines,
    kubernetesService: kubernetesService(platform.data),
    sources,
    ...(discoveredFlink ? { discoveredFlink } : {}),
    aws: aws.success ? aws.data : {},
    port: e.PORT,
    metricsPort: e.METRICS_PORT,
    incidentChannel: e.INCIDENT_CHANNEL,
    sourceTimeoutMs: e.SOURCE_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
  };
  return { problems, bot, autopilotLines, sources, config: deepFreeze(config) };
}

function envCatalog(e: z.infer<typeof EnvSchema>): Config["catalog"] {
  return {
    url: e.ICEBERG_CATALOG_URL,
    token: e.ICEBERG_CATALOG_TOKEN,
    credential: e.ICEBERG_CATALOG_CREDENTIAL,
    oauthUri: e.ICEBERG_CATALOG_OAUTH_URI,
    scope: e.ICEBERG_CATALOG_SCOPE ?? "catalog",
    warehouse: e.ICEBERG_WAREHOUSE,
  };
}

function kubernetesService(p: z.infer<typeof PlatformEnvSchema>): { host: string; port: number } | undefined {
  if (!p.KUBERNETES_SERVICE_HOST) return undefined;
  return { host: p.KUBERNETES_SERVICE_HOST, port: p.KUBERNETES_SERVICE_PORT ?? 443 };
}

/** BOT_CONFIG holds YAML text, or the path of a YAML file (a single line ending in .yaml/.yml). */
export function parseBotConfig(raw: string, readFile?: (path: string) => string): BotConfig {
  return parseBotConfigLocated(raw, readFile).config;
}

function parseBotConfigLocated(raw: string, readFile?: (path: string) => string) {
  if (!raw.includes("\n") && /\.ya?ml$/i.test(raw)) {
    if (!readFile) throw new Error(`names a file (${raw}) but no file reader was given`);
    return parseBotConfigWithLines(readFile(raw), raw, yamlPackage());
  }
  return parseBotConfigWithLines(raw, "BOT_CONFIG", yamlPackage());
}

/** Loaded on the first BOT_CONFIG: settings from the environment alone never pay for the parser. */
function yamlPackage(): YamlApi {
  return createRequire(import.meta.url)("yaml") as YamlApi;
}

/** Client credentials win over a fixed token when both are set: they can be renewed. */
function envCatalogAuth(catalog: Config["catalog"]): SourceSpecs["catalogs"][number]["auth"] {
  const { credential, token, oauthUri, scope } = catalog;
  if (credential) return { kind: "oauth2", credential, tokenUrl: oauthUri, scope };
  if (token) return { kind: "bearer", token };
  return { kind: "none" };
}

/** The settings that are secrets themselves: redacted when printed, scrubbed from free text. */
const SECRET_PATHS = [
  ["slack", "botToken"],
  ["slack", "signingSecret"],
  ["slack", "appToken"],
  ["catalog", "token"],
  ["catalog", "credential"],
] as const;

export const REDACTED = "[redacted]";

/** A copy safe to print or log: secrets replaced, credentials in URLs masked. */
export function redactConfig(config: Config): Record<string, unknown> {
  const copy = structuredClone(config) as unknown as Record<string, unknown>;
  for (const path of SECRET_PATHS) {
    let node = copy as Record<string, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
    const last = path[path.length - 1] as string;
    if (node[last] !== undefined) node[last] = REDACTED;
  }
  copy.alertWebhookTokens = config.alertWebhookTokens.map(() => REDACTED);
  copy.redisUrl = redactUrl(config.redisUrl);
  for (const key of ["flinkUrl", "connectUrl", "prometheusUrl"] as const)
    if (typeof copy[key] === "string") copy[key] = redactUrl(copy[key] as string);
  const catalog = copy.catalog as Record<string, unknown>;
  if (typeof catalog.url === "string") catalog.url = redactUrl(catalog.url);
  for (const list of Object.values(copy.sources as Record<string, Record<string, unknown>[]>)) {
    for (const source of list) {
      if (typeof source.url === "string") source.url = redactUrl(source.url);
      const auth = source.auth as Record<string, unknown>;
      for (const key of ["password", "token", "credential"])
        if (auth[key] !== undefined) auth[key] = REDACTED;
      const tls = source.tls as Record<string, unknown> | undefined;
      if (tls?.key !== undefined) tls.key = REDACTED;
    }
  }
  const discovered = copy.discoveredFlink as
    | { auth: Record<string, unknown>; tls?: Record<string, unknown> }[]
    | undefined;
  for (const access of discovered ?? []) {
    for (const key of ["password", "token"]) if (access.auth[key] !== undefined) access.auth[key] = REDACTED;
    if (access.tls?.key !== undefined) access.tls.key = REDACTED;
  }
  const aws = copy.aws as Record<string, unknown>;
  for (const key of ["secretAccessKey", "sessionToken", "containerAuthToken"])
    if (aws[key] !== undefined) aws[key] = REDACTED;
  const redis = copy.redis as Record<string, unknown>;
  for (const key of ["password", "sentinelPassword"]) if (redis[key] !== undefined) redis[key] = REDACTED;
  if (typeof redis.url === "string") redis.url = redactUrl(redis.url);
  return copy;
}

/** Every secret value in the config, for scrubbing free text (error messages, upstream bodies). */
export function secretValues(config: Config): string[] {
  const values = [
    ...SECRET_PATHS.map(([group, key]) => (config[group] as Record<string, string | undefined>)[key]),
    config.catalog.credential?.split(":").slice(1).join(":"),
    ...config.alertWebhookTokens,
    ...topologySecrets(config.redis),
    ...sourceSecrets(config.sources),
    ...accessSecrets(config.discoveredFlink),
    // What a followed secret file held since (a rotated token).
    ...secretFileValues(),
    config.aws.secretAccessKey,
    config.aws.sessionToken,
    config.aws.containerAuthToken,
    // A password given in a source URL (sent as basic auth, see http.ts).
    ...[config.catalog.url, config.flinkUrl, config.connectUrl, config.prometheusUrl].map(urlPassword),
  ];
  return values.filter((v): v is string => typeof v === "string" && v.length >= 4);
}

/** Removes each secret as typed and URL-encoded, JSON-escaped or base64-encoded (secret-forms.ts). */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return scrubAllForms(text, secrets);
}

function sourceSecrets(sources: SourceSpecs): (string | undefined)[] {
  const all = [...sources.flink, ...sources.connect, ...sources.prometheus, ...sources.catalogs];
  return all.flatMap((source) => {
    const auth = source.auth as { password?: string; token?: string; credential?: string };
    const clientSecret = auth.credential?.split(":").slice(1).join(":");
    return [
      auth.password,
      auth.token,
      auth.credential,
      clientSecret,
      source.tls?.key,
      urlPassword(source.url),
    ];
  });
}

function accessSecrets(rules: readonly DiscoveredFlinkAccess[] | undefined): (string | undefined)[] {
  return (rules ?? []).flatMap((access) => {
    const auth = access.auth as { password?: string; token?: string };
    return [auth.password, auth.token, access.tls?.key];
  });
}

function urlPassword(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  try {
    return decodeURIComponent(new URL(raw).password) || undefined;
  } catch {
    return undefined;
  }
}

export function redactUrl(raw: string): string {
  const url = raw.replace(/([?&]sentinelPassword=)[^&#]*/g, `$1${REDACTED}`);
  // Sentinel and Cluster URLs list several hosts, which URL() cannot parse: mask user:password@.
  const multi = /^(rediss?\+(?:sentinel|cluster):\/\/)(?:([^:@/]*):)?[^@/]*@/.exec(url);
  if (multi) {
    const user = multi[2] === undefined ? "" : `${multi[2]}:`;
    return `${multi[1]}${user}${REDACTED}@${url.slice(multi[0].length)}`;
  }
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = REDACTED;
    return parsed.toString();
  } catch {
    return url;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
