// Playbooks are data. Two kinds of file live in playbooks/: a step playbook (which change to try
// for which findings, how to verify it, where to go when it does not help) and the audit fixes
// (one fix template per audit check). This zod schema is the contract for both.

import { z } from "zod";
import {
  AUDIT_CHECK_IDS,
  CHECK_ANSWERS,
  COMMIT_ERROR_CAUSES,
  FINDING_IDS,
  WRITER_KINDS as KINDS,
  STEP_IDS,
} from "../ids.js";

/** Signals the follow-up reads to decide whether a change helped. */
const VERIFY_SIGNALS = ["writer-snapshots-resume", "elapsed-seconds-normal", "connector-running"] as const;
export type VerifySignal = (typeof VERIFY_SIGNALS)[number];

/** Which writer a change variant is for; "any" fits every writer. */
const WRITER_KINDS = [...KINDS, "any"] as const;

const Text = z.string().trim().min(1);
const StepIdSchema = z.enum(STEP_IDS, {
  error: (issue) => `unknown step id ${JSON.stringify(issue.input)}; step ids are fixed by the runbook`,
});
const FindingIdSchema = z.enum(FINDING_IDS, {
  error: (issue) => `unknown finding id ${JSON.stringify(issue.input)}`,
});

const NumberText = z.string().regex(/^\d+$/, "a whole number, quoted");

/**
 * One property to set (see change.ts for how a value is computed from the current one):
 * - `set`: exactly `value`;
 * - `at-least`: `value` when the current value is lower, otherwise the key is left alone;
 * - `raise`: `value` when the current value is lower, otherwise double the current value, up to
 *   `max`; never lower than the current value.
 * `budget` keeps `key x perAttempt` within `total` (e.g. retries x max wait within the total
 * timeout): when the proposed value would pass it, `perAttempt` is proposed as total / value.
 */
const PropertyTemplateSchema = z
  .object({
    key: Text,
    value: Text,
    mode: z.enum(["set", "at-least", "raise"]).default("set"),
    max: NumberText.optional(),
    budget: z.strictObject({ perAttempt: Text, total: Text }).optional(),
  })
  .superRefine((template, ctx) => {
    if (template.mode !== "set" && !/^\d+$/.test(template.value)) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `mode ${template.mode} needs a number` });
    }
    if (template.max !== undefined && template.mode !== "raise") {
      ctx.addIssue({ code: "custom", path: ["max"], message: "max only applies to mode raise" });
    }
    if (template.max !== undefined && Number(template.max) < Number(template.value)) {
      ctx.addIssue({ code: "custom", path: ["max"], message: "max is below value" });
    }
  });

const ChangeTemplateSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("table-properties"),
    writer: z.enum(WRITER_KINDS).default("any"),
    set: z.array(PropertyTemplateSchema).min(1),
  }),
  z.object({
    kind: z.literal("connector-config"),
    writer: z.literal("connect").default("connect"),
    set: z.array(PropertyTemplateSchema).min(1),
  }),
  z.object({
    kind: z.literal("connector-restart"),
    writer: z.literal("connect").default("connect"),
    includeTasks: z.boolean().default(true),
    onlyFailed: z.boolean().default(true),
  }),
  z.object({
    kind: z.literal("manual"),
    writer: z.enum(WRITER_KINDS).default("any"),
    /** A statement with {placeholders} filled from the table's facts; absent for pure guidance. */
    statement: Text.optional(),
    language: z.enum(["sql", "shell", "yaml", "text"]).optional(),
    checklist: z.array(Text).default([]),
  }),
  /** Nothing changes: the bot reads the table and reports (no approval needed). */
  z.object({
    kind: z.literal("read-only-check"),
    writer: z.enum(WRITER_KINDS).default("any"),
    checklist: z.array(Text).default([]),
  }),
]);

const VerifySchema = z.object({
  signals: z.array(z.enum(VERIFY_SIGNALS)).min(1),
  /** How many follow-up checks before the step is declared ineffective; BOT_CONFIG's followUp.checks when absent. */
  checks: z.number().int().min(1).max(100).optional(),
});

const StepSchema = z.object({
  id: StepIdSchema,
  title: Text,
  /** Findings that select this step; empty when only a transition leads here. */
  selectedBy: z.array(FindingIdSchema).default([]),
  /**
   * When set, a selectedBy finding counts only at this severity or higher (direct evidence of a
   * failure rather than a risk read from settings); weaker ones fall to otherwiseSelectedBy.
   */
  selectedAtSeverity: z.enum(["critical", "warning", "info"]).optional(),
  /** When set, a selectedBy finding counts only when its cause is one of these (commit-error classes). */
  selectedForCause: z.array(z.enum(COMMIT_ERROR_CAUSES)).optional(),
  /**
   * When set, a selectedBy finding counts only once its check is answered with one of these
   * (an answered finding selects no other step): the work the answer leaves is this step.
   */
  selectedForAnswer: z.array(z.enum(CHECK_ANSWERS)).optional(),
  /**
   * Findings that select this step only when no step's selectedBy matched: a fallback, tried in
   * file order after every selectedBy (e.g. the generic restart after a failed commit).
   */
  otherwiseSelectedBy: z.array(FindingIdSchema).default([]),
  /** Why this step, in a sentence for the proposal. */
  why: Text,
  /** What could go wrong, in a sentence for the proposal. */
  risk: Text,
  /** True when the bot can carry the change out itself (after approval). */
  automatic: z.boolean(),
  /** Risky steps need a second approver other than the requester, and every confirmation below. */
  risky: z.boolean().default(false),
  /**
   * The bot can undo the change itself with one atomic commit (table properties, connector
   * config): the first of the two marks an autopilot policy needs before it may name the step.
   */
  reversible: z.boolean().default(false),
  /** The second mark: a wrong value costs little and the revert restores it (docs/autopilot.md). */
  lowRisk: z.boolean().default(false),
  /** Confirmations an approver must tick, e.g. "correctness". */
  confirmations: z.array(Text).default([]),
  /** Variants by writer kind; the first matching variant is used. */
  changes: z.array(ChangeTemplateSchema).min(1),
  verify: VerifySchema,
  transitions: z.object({
    /** A terminal id. */
    recovered: Text,
    /** Step ids or terminal ids, tried in order; the first step not yet tried in this walk wins. */
    ineffective: z.array(Text).min(1),
  }),
});

const TerminalSchema = z.object({
  id: Text,
  outcome: z.enum(["resolved", "stalled"]),
  title: Text,
});

const StepPlaybookSchema = z.object({
  kind: z.literal("steps"),
  id: z.string().regex(/^[a-z0-9-]+$/, "a kebab-case id"),
  title: Text,
  terminals: z.array(TerminalSchema).default([]),
  steps: z.array(StepSchema).min(1),
});

const AuditFixSchema = z.object({
  /** The one statement that fixes the check, with {placeholders}. */
  statement: Text.optional(),
  language: z.enum(["sql", "shell", "yaml", "text"]).default("sql"),
  guidance: Text,
});

const AuditFixesSchema = z.object({
  kind: z.literal("audit-fixes"),
  id: z.string().regex(/^[a-z0-9-]+$/, "a kebab-case id"),
  title: Text,
  fixes: z.partialRecord(z.enum(AUDIT_CHECK_IDS), AuditFixSchema),
});

export const PlaybookFileSchema = z.discriminatedUnion("kind", [StepPlaybookSchema, AuditFixesSchema]);

export type PropertyTemplate = z.infer<typeof PropertyTemplateSchema>;
export type ChangeTemplate = z.infer<typeof ChangeTemplateSchema>;
export type Step = z.infer<typeof StepSchema>;
export type Playbook = z.infer<typeof StepPlaybookSchema>;
export type PlaybookFile = z.infer<typeof PlaybookFileSchema>;

/** Everything loaded from a playbooks directory. */
export interface PlaybookSet {
  playbooks: Playbook[];
  auditFixes: z.infer<typeof AuditFixesSchema>["fixes"];
  /** Which file each playbook came from, for messages. */
  files: Record<string, string>;
}

export interface PlaybookProblem {
  file: string;
  line: number;
  message: string;
  /** Absent: an error (the bot refuses the playbooks). "warning": reported by lint only. */
  severity?: "warning";
}

/** Placeholders a statement template may use; anything else is a lint error. */
export const TEMPLATE_VARIABLES = [
  "table",
  "namespace",
  "tableName",
  "catalog",
  "flinkJob",
  "connector",
  "partitionColumn",
  "command",
] as const;
export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];
