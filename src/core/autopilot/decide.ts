// The autopilot's one decision, pure: given the written policy, what the incident's story says is
// known, the clock and the budgets spent, act (under which policy line, when) or refuse with the
// reason. The service calls it when a step is proposed and again when the hold-off ends.

import type { SourceName, StepId } from "../ids.js";
import type { Playbook, Step } from "../remediation/schema.js";
import type { Report } from "../report/schema.js";
import { unseenOf } from "../story/evidence.js";
import type { AutopilotConfig, TablePattern } from "./policy.js";

/** Why the autopilot left a step to people; each has its words in core/words/autopilot.ts. */
export type Refusal =
  | { kind: "off" }
  | { kind: "switched-off" }
  | { kind: "self-stopped" }
  /** No policy line's patterns match the table: the one refusal the thread is not told of. */
  | { kind: "table-not-in-policy" }
  | { kind: "no-policy" }
  | { kind: "step-not-marked" }
  | { kind: "outside-hours"; policy: string; hours: string }
  | { kind: "table-budget"; policy: string; perDay: number }
  | { kind: "fleet-budget"; perHour: number }
  | { kind: "verdict-not-selecting"; verdict: string }
  | { kind: "source-unseen"; sources: SourceName[] }
  | { kind: "unknown-commit" }
  | { kind: "in-walk" }
  | { kind: "failed-before" }
  | { kind: "handed-back" };

/** What the story says about the incident, as far as the decision needs it. */
export interface AutopilotFacts {
  table: string;
  /** The named catalog the table was read from, when the bot reads several. */
  catalog?: string;
  report: Report;
  /** The step proposed and waiting for approval. */
  stepId: StepId;
  /** People already act on this walk (an earlier step approved, done by hand, or being reverted). */
  inWalk: boolean;
  /** The step did not help the last time it was tried on this table (the incident history). */
  failedLastTime: boolean;
  /** The autopilot already acted on this incident and handed the walk back (a revert, a Hold). */
  handedBack: boolean;
}

/** The kill switch as the shared store holds it (read for every decision). */
export type SwitchState = "on" | "off" | "self-stopped";

export interface Budgets {
  /** Autonomous changes on this table since the start of the UTC day. */
  tableToday: number;
  /** Autonomous changes across the fleet in the last hour. */
  fleetLastHour: number;
}

export type AutopilotDecision =
  | { act: true; policy: string; applyAtMs: number; shadow: boolean }
  | { act: false; refusal: Refusal; shadow: boolean };

export function decideAutopilot(input: {
  config: AutopilotConfig;
  switchState: SwitchState;
  playbooks: readonly Playbook[];
  facts: AutopilotFacts;
  nowMs: number;
  budgets: Budgets;
}): AutopilotDecision {
  const { config, facts, nowMs } = input;
  const shadow = config.mode === "shadow";
  const refuse = (refusal: Refusal): AutopilotDecision => ({ act: false, refusal, shadow });
  if (config.mode === "off") return refuse({ kind: "off" });
  // Shadow mode records what it would do even while the switch is off: nothing is applied anyway.
  if (!shadow && input.switchState === "off") return refuse({ kind: "switched-off" });
  if (!shadow && input.switchState === "self-stopped") return refuse({ kind: "self-stopped" });
  if (facts.handedBack) return refuse({ kind: "handed-back" });
  const forTable = config.policies.filter((p) => p.tables.some((t) => tableMatches(t, facts)));
  if (forTable.length === 0) return refuse({ kind: "table-not-in-policy" });
  const step = stepOf(input.playbooks, facts.stepId);
  if (!step?.reversible || !step.lowRisk || step.risky || !step.automatic)
    return refuse({ kind: "step-not-marked" });
  const policy = forTable.find((p) => p.steps.includes(facts.stepId));
  if (!policy) return refuse({ kind: "no-policy" });

  // Only when the bot is sure: each fact the step rests on is known.
  const { report } = facts;
  if (report.nextStep?.id !== facts.stepId || !selects(step, report))
    return refuse({ kind: "verdict-not-selecting", verdict: report.verdict });
  const unseen = unseenOf(report)
    .map((u) => u.kind)
    .filter((kind) => dependsOn(step, report).includes(kind));
  if (unseen.length > 0) return refuse({ kind: "source-unseen", sources: [...new Set(unseen)] });
  if (report.findings.some((f) => f.id === "commit-state-unknown" && !f.answered))
    return refuse({ kind: "unknown-commit" });
  if (facts.inWalk) return refuse({ kind: "in-walk" });
  if (facts.failedLastTime) return refuse({ kind: "failed-before" });

  if (policy.hours && !withinHours(policy.hours, nowMs))
    return refuse({ kind: "outside-hours", policy: policy.name, hours: policy.hours });
  if (input.budgets.tableToday >= policy.perTablePerDay)
    return refuse({ kind: "table-budget", policy: policy.name, perDay: policy.perTablePerDay });
  if (input.budgets.fleetLastHour >= config.fleetPerHour)
    return refuse({ kind: "fleet-budget", perHour: config.fleetPerHour });
  return { act: true, policy: policy.name, applyAtMs: nowMs + config.holdOffSeconds * 1000, shadow };
}

/** The actor autonomous changes are audited under. */
export function policyActor(name: string): string {
  return `policy:${name}`;
}

function stepOf(playbooks: readonly Playbook[], id: StepId): Step | undefined {
  return playbooks.flatMap((p) => p.steps).find((s) => s.id === id);
}

/** The verdict, or a finding at the verdict's side, is one the step is selected for. */
function selects(step: Step, report: Report): boolean {
  const by = new Set<string>([...step.selectedBy, ...step.otherwiseSelectedBy]);
  return by.has(report.verdict) || report.findings.some((f) => by.has(f.id));
}

/**
 * The sources a step's decision and proof rest on: the catalog (the commit, and the snapshots the
 * checks read) and the failing writer's own source (whose commits judge recovery).
 */
function dependsOn(step: Step, report: Report): SourceName[] {
  const out: SourceName[] = ["catalog"];
  if (report.writer) out.push(report.writer.kind);
  if (step.changes.some((c) => c.kind === "connector-config")) out.push("connect");
  return out;
}

function tableMatches(pattern: TablePattern, facts: AutopilotFacts): boolean {
  const levels = facts.table.split(".");
  const name = levels.pop() ?? "";
  const namespace = levels.join(".");
  if (pattern.catalog !== undefined && !glob(pattern.catalog, facts.catalog ?? "default")) return false;
  if (pattern.namespace !== undefined && !glob(pattern.namespace, namespace)) return false;
  return pattern.name === undefined || glob(pattern.name, name);
}

function glob(pattern: string, text: string): boolean {
  const re = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${re}$`).test(text);
}

/** Whether the UTC time of day falls in "HH:MM-HH:MM" (over midnight when the end is earlier). */
function withinHours(hours: string, nowMs: number): boolean {
  const [from, to] = hours.split("-").map((hm) => {
    const [h, m] = hm.split(":").map(Number);
    return (h ?? 0) * 60 + (m ?? 0);
  }) as [number, number];
  const d = new Date(nowMs);
  const minute = d.getUTCHours() * 60 + d.getUTCMinutes();
  return from <= to ? minute >= from && minute < to : minute >= from || minute < to;
}

/** Start of the UTC day holding `nowMs`, for the per-table budget. */
export function utcDayStart(nowMs: number): number {
  return Math.floor(nowMs / 86_400_000) * 86_400_000;
}
