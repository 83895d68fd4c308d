// The only reader of the environment. Everything is parsed with zod from an injected env, every
// problem is reported at once, and the result is frozen. Secrets never leave through toJSON,
// logs or error messages: use redactConfig() when printing.

import { createRequire } from "node:module";
import { z } from "zod";
import { resolveDiscoveredFlinkAccess, resolveSources, type SingleUrlSources } from "./config-sources.js";
import {
  type BotConfig,
  BotConfigProblems,
  BotConfigSchema,
  parseBotConfigWithLines,
} from "./core/settings.js";
import { sourceUrl } from "./core/sources/config-schema.js";
import {
  type CatalogAuthSpec,
  type DiscoveredFlinkAccess,
  EMPTY_SOURCES,
  type SourceSpecs,
} from "./core/sources/model.js";
import type { YamlApi } from "./core/yaml-lines.js";
import { CodedError, ErrorCode } from "./errors.js";
import { DEFAULT_REDIS_URL, parseRedisUrl } from "./redis-url.js";
import { slackTokenProblems } from "./token-kinds.js";
import { secretFileValues } from "./util/secret-file.js";
import { credentialSecret, urlPassword } from "./util/secret-forms.js";

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

/** What SOURCE_TIMEOUT_MS (and --timeout-ms) may be, in milliseconds. */
export const SOURCE_TIMEOUT_RANGE = { min: 100, max: 120_000 } as const;

const optionalUrl = optionalText.pipe(z.url({ protocol: /^https?$/ }).optional());

/** Where a single-URL source's credentials go instead of its URL: a named source with auth. */
const ENV_SOURCE_AUTH = (kind: string) =>
  `a named source in BOT_CONFIG (sources.${kind}: [{name, url, auth: {type: basic, username, passwordEnv}}])`;

const EnvVariables = z.object({
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
  SOURCE_TIMEOUT_MS: emptyAsUnset(
    z.coerce.number().int().min(SOURCE_TIMEOUT_RANGE.min).max(SOURCE_TIMEOUT_RANGE.max).default(5000),
  ),
  LOG_LEVEL: emptyAsUnset(
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
});

/** The settings the variables give, checked and named as the bot uses them. */
const EnvSchema = EnvVariables.transform((e) => ({
  slack: {
    botToken: e.SLACK_BOT_TOKEN,
    signingSecret: e.SLACK_SIGNING_SECRET,
    appToken: e.SLACK_APP_TOKEN,
    apiUrl: e.SLACK_API_URL,
    /** "socket" when an app token is set, "http" otherwise. */
    mode: e.SLACK_APP_TOKEN ? ("socket" as const) : ("http" as const),
  },
  redisUrl: e.REDIS_URL,
  /** REDIS_URL parsed: standalone, Sentinel or Cluster (see README, Running in production). */
  redis: parseRedisUrl(e.REDIS_URL),
  /** The single-URL variables' sources, resolved into `sources` with BOT_CONFIG's (named "default"). */
  singleUrl: singleUrlSources(e),
  /** The tokens an alert webhook may present: one, or the new and the old during a rotation. */
  alertWebhookTokens: e.ALERT_WEBHOOK_TOKEN ?? [],
  port: e.PORT,
  metricsPort: e.METRICS_PORT,
  incidentChannel: e.INCIDENT_CHANNEL,
  sourceTimeoutMs: e.SOURCE_TIMEOUT_MS,
  logLevel: e.LOG_LEVEL,
}));

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
export const ENV_NAMES = Object.keys(EnvVariables.shape) as ReadonlyArray<keyof typeof EnvVariables.shape>;

/**
 * Set by Kubernetes itself in every pod (never by our manifests): where the in-cluster API server
 * is, for Flink Kubernetes Operator discovery with the pod's service account.
 */
const PlatformEnvSchema = z.object({
  KUBERNETES_SERVICE_HOST: optionalText,
  KUBERNETES_SERVICE_PORT: emptyAsUnset(z.coerce.number().int().min(1).max(65_535).optional()),
});
export const PLATFORM_ENV_NAMES = Object.keys(PlatformEnvSchema.shape);

export interface Config extends Omit<z.output<typeof EnvSchema>, "singleUrl"> {
  bot: BotConfig;
  /** "file:line" of each autopilot policy line in BOT_CONFIG, by name (for the thread's announcement). */
  autopilotLines: Record<string, string>;
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
}

export type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** Reads BOT_CONFIG when it names a file; injected so the config stays testable. */
  readFile?: (path: string) => string;
}

/**
 * Everything loadConfig finds in one pass, without throwing: every problem (variables, BOT_CONFIG
 * with its lines, the variables and files it names), the settings that did parse (autopilot's
 * lines also when other settings are wrong), and the sources as far as they resolved
 * (`iceberg-bot config check` probes them). `config` is set only when there is no problem.
 */
export interface ConfigInspection extends Pick<Config, "bot" | "autopilotLines" | "sources"> {
  problems: string[];
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
  const parsed = EnvSchema.safeParse(env);
  const platform = PlatformEnvSchema.safeParse(env);
  const aws = AwsEnvSchema.safeParse(env);
  const problems = [...issueLines(parsed), ...issueLines(platform)];
  const { bot, where } = readBotConfig(env.BOT_CONFIG?.trim(), options.readFile, problems);
  problems.push(...issueLines(aws));
  let sources: SourceSpecs = EMPTY_SOURCES;
  let discoveredFlink: DiscoveredFlinkAccess[] | undefined;
  if (parsed.success) {
    const ctx = { env, readFile: options.readFile, where, problems: [] as string[] };
    sources = resolveSources(bot.sources, parsed.data.singleUrl, ctx);
    if (bot.kubernetes) discoveredFlink = resolveDiscoveredFlinkAccess(bot.kubernetes, ctx);
    const known = new Set(sources.catalogs.map((c) => c.name));
    bot.sweep.catalogs.forEach((name, i) => {
      if (!known.has(name))
        ctx.problems.push(
          `sweep.catalogs.${i}: no catalog is named ${name} (known: ${[...known].join(", ") || "none"}) (at ${where(["sweep", "catalogs", i])})`,
        );
    });
    problems.push(...ctx.problems.map((p) => `BOT_CONFIG: ${p}`));
  }
  problems.push(...slackTokenProblems(env));

  const autopilotLines = Object.fromEntries(
    bot.autopilot.policies.map((p, i) => [p.name, where(["autopilot", "policies", i])]),
  );
  if (problems.length > 0 || !parsed.success || !platform.success || !aws.success)
    return { problems, bot, autopilotLines, sources };
  const { singleUrl: _, ...settings } = parsed.data;
  const config: Config = {
    ...settings,
    bot,
    autopilotLines,
    kubernetesService: kubernetesService(platform.data),
    sources,
    ...(discoveredFlink ? { discoveredFlink } : {}),
    aws: aws.data,
  };
  return { problems, bot, autopilotLines, sources, config: deepFreeze(config) };
}

function issueLines(result: z.ZodSafeParseResult<unknown>): string[] {
  return result.error?.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`) ?? [];
}

/** BOT_CONFIG's settings, or as much of them as parsed, each problem in `problems`. */
function readBotConfig(raw: string | undefined, readFile: LoadConfigOptions["readFile"], problems: string[]) {
  let bot: BotConfig = BotConfigSchema.parse({});
  let where = (path: readonly (string | number)[]) => `BOT_CONFIG (${path.join(".")})`;
  if (!raw) return { bot, where };
  try {
    ({ config: bot, where } = parseBotConfig(raw, readFile));
  } catch (error) {
    if (error instanceof BotConfigProblems) {
      // Each problem on its own line; what did parse is still checked, in this pass.
      problems.push(...error.problems.map((p) => `BOT_CONFIG: ${p}`));
      bot = error.partial;
      where = error.where;
    } else problems.push(`BOT_CONFIG: ${(error as Error).message}`);
  }
  return { bot, where };
}

/** The single-URL variables' sources; client credentials win over a fixed token (they can be renewed). */
function singleUrlSources(e: z.output<typeof EnvVariables>): SingleUrlSources {
  const credential = e.ICEBERG_CATALOG_CREDENTIAL;
  const token = e.ICEBERG_CATALOG_TOKEN;
  const auth: CatalogAuthSpec = credential
    ? {
        kind: "oauth2",
        credential,
        tokenUrl: e.ICEBERG_CATALOG_OAUTH_URI,
        scope: e.ICEBERG_CATALOG_SCOPE ?? "catalog",
      }
    : token
      ? { kind: "bearer", token }
      : { kind: "none" };
  const url = e.ICEBERG_CATALOG_URL;
  const warehouse = e.ICEBERG_WAREHOUSE;
  return {
    flinkUrl: e.FLINK_REST_URL,
    connectUrl: e.CONNECT_REST_URL,
    prometheusUrl: e.PROMETHEUS_URL,
    ...(url ? { catalog: { url, auth, ...(warehouse ? { warehouse } : {}) } } : {}),
  };
}

function kubernetesService(p: z.infer<typeof PlatformEnvSchema>): { host: string; port: number } | undefined {
  if (!p.KUBERNETES_SERVICE_HOST) return undefined;
  return { host: p.KUBERNETES_SERVICE_HOST, port: p.KUBERNETES_SERVICE_PORT ?? 443 };
}

/** BOT_CONFIG holds YAML text, or the path of a YAML file (a single line ending in .yaml/.yml). */
function parseBotConfig(raw: string, readFile?: (path: string) => string) {
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

/** The keys whose values are secrets, wherever they sit: redacted when printed, scrubbed from free text. */
const SECRET_KEYS = new Set([
  "botToken",
  "signingSecret",
  "appToken",
  "token",
  "credential",
  "password",
  "sentinelPassword",
  "key",
  "secretAccessKey",
  "sessionToken",
  "containerAuthToken",
]);
/** The keys of URLs, which may carry a password (REDIS_URL, one a source's URL sends as basic auth). */
const URL_KEYS = new Set(["url", "redisUrl"]);
/** Settings people name things in (BOT_CONFIG, labels, policy names) hold no secret: not walked. */
const NAMED_BY_PEOPLE = new Set(["bot", "autopilotLines", "matchLabels"]);

/** Every string setting of the config, with the object holding it. */
function eachString(
  node: unknown,
  visit: (parent: Record<string, unknown>, key: string, value: string) => void,
) {
  if (!node || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (typeof value === "string") visit(node as Record<string, unknown>, key, value);
    else if (!NAMED_BY_PEOPLE.has(key)) eachString(value, visit);
  }
}

export const REDACTED = "[redacted]";

/** A copy safe to print or log: secrets replaced, credentials in URLs masked. */
export function redactConfig(config: Config): Record<string, unknown> {
  const copy = structuredClone(config) as unknown as Record<string, unknown>;
  eachString(copy, (parent, key, value) => {
    if (SECRET_KEYS.has(key)) parent[key] = REDACTED;
    else if (URL_KEYS.has(key)) parent[key] = redactUrl(value);
  });
  copy.alertWebhookTokens = config.alertWebhookTokens.map(() => REDACTED);
  return copy;
}

/** Every secret value in the config, for scrubbing free text (error messages, upstream bodies). */
export function secretValues(config: Config): string[] {
  // What a followed secret file held since (a rotated token) too.
  const values = [...config.alertWebhookTokens, ...secretFileValues()];
  eachString(config, (_, key, value) => {
    if (SECRET_KEYS.has(key)) values.push(value, ...(key === "credential" ? [credentialSecret(value)] : []));
    else if (URL_KEYS.has(key)) values.push(urlPassword(value) ?? "");
  });
  return values.filter((v) => v.length >= 4);
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
