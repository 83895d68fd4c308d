// The JSON report and audit contracts (DESIGN.md). zod is the source of truth; docs/*.schema.json
// is generated from these schemas and a test keeps the two equal.

import { z } from "zod";
import {
  AUDIT_CHECK_IDS,
  CHECK_ANSWERS,
  COMMIT_ERROR_CAUSES,
  FINDING_IDS,
  SOURCE_NAMES,
  STEP_IDS,
  TRIAGE_IDS,
} from "../ids.js";

const SeveritySchema = z.enum(["critical", "warning", "info"]);

const EvidenceItemSchema = z.object({
  source: z.enum(SOURCE_NAMES),
  detail: z.string().min(1),
  data: z.record(z.string(), z.unknown()).default({}),
});

/** The exception behind a triage finding: the root of its `Caused by:` chain, how often, when. */
const ExceptionQuoteSchema = z.object({
  source: z.enum(SOURCE_NAMES),
  /** Fully qualified class of the root cause, e.g. org.apache.iceberg.exceptions.NotAuthorizedException. */
  exception: z.string().min(1),
  /** Its message (first line). */
  message: z.string(),
  /** The outermost exception when it differs from the root, e.g. the Connect task's wrapper. */
  thrownAs: z.string().optional(),
  count: z.number().int().min(1),
  /** First and last time seen; absent when the source does not date it (Connect traces). */
  firstSeen: z.iso.datetime().optional(),
  lastSeen: z.iso.datetime().optional(),
  /** Flink task or Connect connector/task. */
  where: z.string().optional(),
});

export const FindingSchema = z.object({
  id: z.enum(FINDING_IDS),
  severity: SeveritySchema,
  summary: z.string().min(1),
  evidence: z.array(EvidenceItemSchema).min(1),
  /** Present on every triage finding caused by an exception. */
  quote: ExceptionQuoteSchema.optional(),
  /** commit-error only: what the root exception says went wrong; it decides the step. */
  cause: z.enum(COMMIT_ERROR_CAUSES).optional(),
  /** True when the diagnosis already did the check this finding calls for (e.g. whether an unknown commit landed). */
  answered: z.boolean().optional(),
  /** What that check found, when it decides the step (an unknown commit committed twice: "duplicate"). */
  answer: z.enum(CHECK_ANSWERS).optional(),
});

const PropertyChangeSchema = z.object({
  key: z.string().min(1),
  /** null when the property is unset (the table uses Iceberg's default). */
  current: z.string().nullable(),
  proposed: z.string().nullable(),
});

export const ChangeSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("table-properties"),
    table: z.string(),
    /** The named catalog the change is made in (BOT_CONFIG sources.catalogs). */
    catalogSource: z.string().min(1).optional(),
    changes: z.array(PropertyChangeSchema).min(1),
  }),
  z.object({
    kind: z.literal("connector-config"),
    connector: z.string(),
    /** The Kafka Connect cluster running the connector (BOT_CONFIG sources.connect). */
    cluster: z.string().min(1).optional(),
    changes: z.array(PropertyChangeSchema).min(1),
  }),
  z.object({
    kind: z.literal("connector-restart"),
    connector: z.string(),
    cluster: z.string().min(1).optional(),
    includeTasks: z.boolean(),
    onlyFailed: z.boolean(),
  }),
  /** Nothing changes: the bot reads the table itself; the statement lets a person look too. */
  z.object({
    kind: z.literal("read-only-check"),
    statement: z.string().optional(),
    language: z.enum(["sql", "shell", "yaml", "text"]).optional(),
    checklist: z.array(z.string()).default([]),
  }),
  z.object({
    kind: z.literal("manual"),
    /** The exact statement for a person to run, ready to copy; absent for pure guidance. */
    statement: z.string().optional(),
    language: z.enum(["sql", "shell", "yaml", "text"]).optional(),
    checklist: z.array(z.string()).default([]),
  }),
]);

export const NextStepSchema = z.object({
  id: z.enum(STEP_IDS),
  playbook: z.string(),
  summary: z.string().min(1),
  change: ChangeSchema,
  automatic: z.boolean(),
});

const SourceReportSchema = z.object({
  status: z.enum(["ok", "unavailable", "not-configured"]),
  latencyMs: z.number().nonnegative().optional(),
  error: z.string().optional(),
  /** The HTTP status the source answered the bot's own read with (401/403: the bot's credential). */
  httpStatus: z.number().int().optional(),
  /** Answered only in part: these named sources of the kind (one Flink cluster of several) did not. */
  gaps: z
    .array(z.object({ source: z.string().min(1), error: z.string() }))
    .min(1)
    .optional(),
});

/** The writer the verdict is about: the one failing, whose own commits count as its recovery. */
const ReportWriterSchema = z.object({
  kind: z.enum(["flink", "connect"]),
  /** The Flink job id or the Connect connector name. */
  id: z.string().min(1),
  /** The Flink job's name (a successor run of the same pipeline carries it too). */
  name: z.string().min(1).optional(),
  /** The Flink source or Kafka Connect cluster it runs on, when the bot reads named sources. */
  cluster: z.string().min(1).optional(),
  /** The committer's `flink.operator-id`, read from the writer's snapshots. */
  operatorId: z.string().min(1).optional(),
  /** The writer's newest snapshot: its last good commit. */
  lastCommitAt: z.iso.datetime().optional(),
  /** When the writer failed (its newest failure, or when its next commit was due). */
  failedAt: z.iso.datetime().optional(),
});

export const ReportSchema = z.object({
  reportVersion: z.literal(1),
  table: z.string().min(1),
  generatedAt: z.iso.datetime(),
  verdict: z.enum(TRIAGE_IDS),
  /** The named catalog (BOT_CONFIG sources.catalogs) the table was read from. */
  catalogSource: z.string().min(1).optional(),
  /** How a name starting with a catalog's name that is also a namespace was read. */
  catalogNote: z.string().min(1).optional(),
  writer: ReportWriterSchema.optional(),
  findings: z.array(FindingSchema),
  nextStep: NextStepSchema.nullable(),
  /** Why no step is proposed although the verdict is not healthy. */
  noStepReason: z.string().min(1).optional(),
  sources: z.object({
    catalog: SourceReportSchema,
    flink: SourceReportSchema,
    connect: SourceReportSchema,
    prometheus: SourceReportSchema,
  }),
});

const AuditCheckSchema = z.object({
  id: z.enum(AUDIT_CHECK_IDS),
  status: z.enum(["pass", "warn", "fail"]),
  summary: z.string().min(1),
  values: z.record(z.string(), z.string().nullable()),
  /** The one statement that fixes it; absent when the check passes. */
  fix: z.string().optional(),
});

export const AuditReportSchema = z.object({
  reportVersion: z.literal(1),
  table: z.string().min(1),
  generatedAt: z.iso.datetime(),
  checks: z.array(AuditCheckSchema),
});

export type Severity = z.infer<typeof SeveritySchema>;
export type EvidenceItem = z.infer<typeof EvidenceItemSchema>;
export type Finding = z.infer<typeof FindingSchema>;
export type ExceptionQuote = z.infer<typeof ExceptionQuoteSchema>;
export type PropertyChange = z.infer<typeof PropertyChangeSchema>;
export type Change = z.infer<typeof ChangeSchema>;
export type NextStep = z.infer<typeof NextStepSchema>;
export type Report = z.infer<typeof ReportSchema>;
export type ReportWriter = z.infer<typeof ReportWriterSchema>;
export type AuditCheck = z.infer<typeof AuditCheckSchema>;
export type AuditReport = z.infer<typeof AuditReportSchema>;
