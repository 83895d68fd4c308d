// From findings to one proposal: pick the step, pick the change variant for the writer, and fill
// it with the table's current values so the proposal can show a real diff.

import type { FindingId } from "../ids.js";
import type { Change, Finding, NextStep, PropertyChange } from "../report/schema.js";
import { chooseStep } from "./choose.js";
import type {
  ChangeTemplate,
  Playbook,
  PlaybookSet,
  PropertyTemplate,
  Step,
  TemplateVariable,
} from "./schema.js";

export interface ChangeFacts {
  /** namespace.table */
  table: string;
  writer: "flink" | "connect" | "unknown";
  /** The table's current properties. */
  properties?: Readonly<Record<string, string>>;
  connector?: string;
  /** The connector's current config. */
  connectorConfig?: Readonly<Record<string, string>>;
  /** Extra template values (catalog, flinkJob, partitionColumn, command…). */
  vars?: Partial<Record<TemplateVariable, string>>;
}

/** The step the findings select in this playbook (see choose.ts for the order). */
export function selectStep(
  playbook: Playbook,
  findings: readonly (FindingId | Pick<Finding, "id" | "severity">)[],
): Step | undefined {
  return chooseStep(
    [playbook],
    findings.map((f) => (typeof f === "string" ? { id: f } : f)),
  )?.step;
}

/** The step with this id across a playbook set, with the playbook it belongs to. */
export function findStep(set: PlaybookSet, stepId: string): { playbook: Playbook; step: Step } | undefined {
  for (const playbook of set.playbooks) {
    const step = playbook.steps.find((s) => s.id === stepId);
    if (step) return { playbook, step };
  }
  return undefined;
}

/** The change variant that fits the writer: connector changes need a known connector. */
export function chooseVariant(step: Step, facts: ChangeFacts): ChangeTemplate | undefined {
  return step.changes.find((variant) => {
    if (variant.kind === "connector-config" || variant.kind === "connector-restart") {
      return facts.writer === "connect" && facts.connector !== undefined;
    }
    return variant.writer === "any" || variant.writer === facts.writer;
  });
}

/** The report's nextStep for a step, or undefined when no variant fits this writer. */
export function buildNextStep(playbook: Playbook, step: Step, facts: ChangeFacts): NextStep | undefined {
  const variant = chooseVariant(step, facts);
  if (!variant) return undefined;
  const change = buildChange(variant, facts);
  const automatic = step.automatic && variant.kind !== "manual";
  return { id: step.id, playbook: playbook.id, summary: step.title, change, automatic };
}

export function buildChange(variant: ChangeTemplate, facts: ChangeFacts): Change {
  switch (variant.kind) {
    case "table-properties":
      return {
        kind: "table-properties",
        table: facts.table,
        changes: variant.set.map((p) => propertyChange(p, facts.properties ?? {})),
      };
    case "connector-config":
      return {
        kind: "connector-config",
        connector: facts.connector ?? "",
        changes: variant.set.map((p) => propertyChange(p, facts.connectorConfig ?? {})),
      };
    case "connector-restart":
      return {
        kind: "connector-restart",
        connector: facts.connector ?? "",
        includeTasks: variant.includeTasks,
        onlyFailed: variant.onlyFailed,
      };
    case "manual": {
      const vars = templateVars(facts);
      const change: Change = {
        kind: "manual",
        checklist: variant.checklist.map((c) => renderTemplate(c, vars)),
      };
      if (variant.statement) change.statement = renderTemplate(variant.statement, vars);
      if (variant.language) change.language = variant.language;
      return change;
    }
    case "read-only-check":
      return { kind: "manual", language: "text", checklist: variant.checklist };
  }
}

function propertyChange(
  template: PropertyTemplate,
  current: Readonly<Record<string, string>>,
): PropertyChange {
  const now = current[template.key] ?? null;
  let proposed = template.value;
  if (template.mode === "raise" && now !== null) {
    const was = Number(now);
    const floor = Number(template.value);
    // Never propose less than what is set: a raised value doubles instead.
    if (Number.isFinite(was) && Number.isFinite(floor) && was >= floor) proposed = String(was * 2);
  }
  return { key: template.key, current: now, proposed };
}

export function templateVars(facts: ChangeFacts): Record<string, string> {
  const parts = facts.table.split(".");
  const vars: Record<string, string> = {
    table: facts.table,
    namespace: parts.slice(0, -1).join("."),
    tableName: parts[parts.length - 1] ?? facts.table,
  };
  if (facts.connector) vars.connector = facts.connector;
  for (const [key, value] of Object.entries(facts.vars ?? {})) {
    if (value !== undefined) vars[key] = value;
  }
  return vars;
}

/** Fills {name} placeholders; unknown values stay visible as <name> for the person to fill. */
export function renderTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => vars[name] ?? `<${name}>`);
}
