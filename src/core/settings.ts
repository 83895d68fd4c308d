// BOT_CONFIG: the bot's own settings (channels, approvers, follow-up pacing, per-table writers).
// The schema, the per-table merge and the parse from YAML text live here, pure; config.ts only
// hands over the environment variable (and reads the file it names). Unknown keys are errors,
// each with the file and line it is on, because a misspelt "aprovers" must not silently mean
// "nobody may approve".

import { z } from "zod";
import { AutopilotConfigSchema } from "./autopilot/policy.js";
import { KubernetesSettingsSchema } from "./kubernetes-settings.js";
import { SOURCE_KEYS, SourcesConfigSchema } from "./sources/config-schema.js";
import { DEFAULT_SWEEP_CONFIG, SweepConfigSchema } from "./sweep/config.js";
import { lineOfPath, type YamlApi } from "./yaml-lines.js";

const FollowUpSchema = z.strictObject({
  intervalSeconds: z.number().int().min(5).max(86_400).default(300),
  checks: z.number().int().min(1).max(100).default(6),
});

/** Follow-up checks when nothing sets them: every 5 minutes, 6 times. */
export const DEFAULT_FOLLOW_UP = FollowUpSchema.parse({});

/** Slack user ids (U…/W…) or user group ids (S…). */
const ApproverSchema = z.string().regex(/^[UWS][A-Z0-9]{2,}$/, "a Slack user id (U…) or user group id (S…)");

const TableSettingsSchema = z.strictObject({
  /** Flink job id that writes the table; discovered from snapshot summaries when absent. */
  flinkJob: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .optional(),
  /** Flink job name, as alerts carry it in the job_name label. */
  flinkJobName: z.string().optional(),
  /** Kafka Connect connector that writes the table; discovered from iceberg.tables when absent. */
  connector: z.string().optional(),
  channel: z.string().optional(),
  approvers: z.array(ApproverSchema).optional(),
  followUp: FollowUpSchema.partial().optional(),
});

/** How long data is kept (docs/operations.md, Data lifetime). */
const RetentionSchema = z
  .strictObject({
    /** Days a resolved or stopped incident (record, walk, timeline, reports) is kept. */
    resolvedDays: z.number().int().min(1).max(3650).default(30),
    /** Days an entry of a table's audit trail is kept: who approved what, for reviews. */
    auditDays: z.number().int().min(1).max(3650).default(400),
  })
  .refine((r) => r.auditDays >= r.resolvedDays, {
    message: "auditDays must be at least resolvedDays (the audit trail outlives the incidents it records)",
  });

export const BotConfigSchema = z.strictObject({
  defaults: z
    .strictObject({
      channel: z.string().optional(),
      approvers: z.array(ApproverSchema).default([]),
      followUp: FollowUpSchema.prefault({}),
    })
    .prefault({}),
  tables: z.record(z.string(), TableSettingsSchema).default({}),
  sweep: SweepConfigSchema.default(DEFAULT_SWEEP_CONFIG),
  retention: RetentionSchema.prefault({}),
  /**
   * The incident history per table (kept as long as resolved incidents): `suggestions: false`
   * keeps recording it but never says "seen before" nor reorders the steps.
   */
  history: z.strictObject({ suggestions: z.boolean().default(true) }).default({ suggestions: true }),
  /** Per worker process: how many diagnoses run at once (docs/operations.md, Sizing). */
  workers: z
    .strictObject({ diagnoses: z.number().int().min(1).max(64).default(8) })
    .default({ diagnoses: 8 }),
  /** Messages owed to Slack longer than this make /readyz fail (docs/operations.md). */
  slackDelivery: z
    .strictObject({ delayedAfterSeconds: z.number().int().min(10).max(86_400).default(300) })
    .default({ delayedAfterSeconds: 300 }),
  /** Slash-command rate limits, shared by every process through Redis (docs/operations.md, Rate limits). */
  rateLimits: z
    .strictObject({
      /** `/iceberg diagnose|audit|history` per person per window. */
      commandsPerPerson: z.number().int().min(1).max(10_000).default(6),
      /** `/iceberg diagnose|audit` per table per window. */
      diagnosesPerTable: z.number().int().min(1).max(10_000).default(10),
      windowSeconds: z.number().int().min(1).max(3600).default(60),
    })
    .default({ commandsPerPerson: 6, diagnosesPerTable: 10, windowSeconds: 60 }),
  /** New incidents one notification and one minute may open; the rest wait (docs/operations.md, Alert floods). */
  incidentCap: z
    .strictObject({
      perRequest: z.number().int().min(1).max(10_000).default(20),
      perMinute: z.number().int().min(1).max(100_000).default(60),
    })
    .default({ perRequest: 20, perMinute: 60 }),
  /** Flink Kubernetes Operator discovery (docs/kubernetes.md); absent = none. */
  kubernetes: KubernetesSettingsSchema.optional(),
  /** Named Flink sources, Connect clusters, catalogs and Prometheus servers (docs/sources.md). */
  sources: SourcesConfigSchema.default({ flink: [], connect: [], prometheus: [], catalogs: [] }),
  /** Low-risk steps applied under a written policy; off unless written (docs/autopilot.md). */
  autopilot: AutopilotConfigSchema.prefault({}),
});

export type BotConfig = z.infer<typeof BotConfigSchema>;
type TableSettings = z.infer<typeof TableSettingsSchema>;

export interface ResolvedTableSettings extends Omit<TableSettings, "approvers" | "followUp"> {
  channel?: string;
  /** The table's own approvers, else the defaults': the one place this fallback is made. */
  approvers: readonly string[];
  followUp: { intervalSeconds: number; checks: number };
}

/** Settings for one table: its own entry over the defaults. */
export function tableSettings(bot: BotConfig, table: string): ResolvedTableSettings {
  const own = bot.tables[table] ?? {};
  return {
    ...own,
    channel: own.channel ?? bot.defaults.channel,
    approvers: own.approvers ?? bot.defaults.approvers,
    followUp: { ...bot.defaults.followUp, ...own.followUp },
  };
}

/**
 * BOT_CONFIG from YAML text; `source` names where the text came from (a file path, or
 * "BOT_CONFIG") for the messages. Throws one Error listing every problem with its line.
 */
export function parseBotConfigText(text: string, source: string, yaml: YamlApi): BotConfig {
  return parseBotConfigWithLines(text, source, yaml).config;
}

/** Where a key of BOT_CONFIG is: "file:line". */
export type ConfigWhere = (path: readonly (string | number)[]) => string;

/**
 * BOT_CONFIG that does not parse: every problem with its line, and what did parse (each top-level
 * section that is valid on its own, defaults for the rest), so the settings it names (variables,
 * files) are checked in the same pass instead of after the file is fixed.
 */
export class BotConfigProblems extends Error {
  constructor(
    readonly problems: string[],
    readonly partial: BotConfig,
    readonly where: ConfigWhere,
  ) {
    super(problems.join("; "));
    this.name = "BotConfigProblems";
  }
}

/**
 * The parsed settings and `where(path)`: "file:line" of a key, for problems found later. The yaml
 * package comes from the caller, which loads it only when there is YAML to read.
 */
export function parseBotConfigWithLines(
  text: string,
  source: string,
  yaml: YamlApi,
): { config: BotConfig; where: ConfigWhere } {
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  if (doc.errors.length > 0) {
    throw new BotConfigProblems(
      doc.errors.map(
        (e) =>
          `YAML syntax: ${e.message.split("\n")[0]} (at ${source}:${e.linePos?.[0].line ?? lineAt(e.pos[0])})`,
      ),
      BotConfigSchema.parse({}),
      () => source,
    );
  }
  const raw = doc.toJS() ?? {};
  const where: ConfigWhere = (path) => `${source}:${lineOfPath(yaml, doc, path, lineAt)}`;
  const result = BotConfigSchema.safeParse(raw);
  if (result.success) return { config: result.data, where };
  const problems = result.error.issues.flatMap((issue) => {
    // An unknown key is reported at the key itself, not at the object holding it.
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
    return keys.map((key) => {
      const path = key === undefined ? issue.path : [...issue.path, key];
      const what = key === undefined ? issue.message : `unknown key (allowed: ${allowedKeys(issue.path)})`;
      return `${path.map(String).join(".") || "(root)"}: ${what} (at ${where(path as (string | number)[])})`;
    });
  });
  throw new BotConfigProblems(problems, partialBotConfig(raw), where);
}

/** Each top-level section that is valid on its own; the default for every other. */
function partialBotConfig(raw: unknown): BotConfig {
  const object = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const shape = BotConfigSchema.shape;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape) as (keyof typeof shape)[]) {
    const section = shape[key].safeParse(object[key]);
    out[key] = section.success ? section.data : shape[key].parse(undefined);
  }
  return out as BotConfig;
}

function allowedKeys(path: readonly PropertyKey[]): string {
  if (path.length === 0) return Object.keys(BotConfigSchema.shape).join(", ");
  if (path[0] === "defaults" && path.length === 1) return "channel, approvers, followUp";
  if (path[path.length - 1] === "followUp") return "intervalSeconds, checks";
  if (path[0] === "autopilot") {
    if (path.length === 1) return "mode, holdOffSeconds, fleetPerHour, stopAfterReverts, policies";
    if (path[path.length - 1] === "stopAfterReverts") return "count, windowMinutes";
    if (path.length === 3) return "name, tables, steps, hours, perTablePerDay";
    return "catalog, namespace, name";
  }
  if (path[0] === "kubernetes" && path.length === 1)
    return Object.keys(KubernetesSettingsSchema.shape).join(", ");
  if (path[0] === "sources") {
    if (path.length === 1) return SOURCE_KEYS.sources.join(", ");
    if (path.length === 3)
      return (path[1] === "catalogs" ? SOURCE_KEYS.catalog : SOURCE_KEYS.http).join(", ");
    if (path[3] === "tls") return "certFile, keyFile, caFile";
    return "the keys of its auth type (see docs/sources.md)";
  }
  return Object.keys(TableSettingsSchema.shape).join(", ");
}
