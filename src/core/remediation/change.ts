// The one change builder. Every path that puts a change in front of people goes through
// proposeChange: the diagnosis report's next step, the proposal in the thread, the next step
// after an ineffective one, and the fresh proposal after a catalog conflict. The step's
// definition in playbooks/*.yaml decides the change (variant per writer, mode, cap, budget);
// the facts are the table's values as read now, so a refresh recomputes instead of patching.

import { CONNECT_DEFAULTS, TABLE_DEFAULTS } from "../properties.js";
import type { Change, PropertyChange } from "../report/schema.js";
import type { ChangeTemplate, PropertyTemplate, Step, TemplateVariable } from "./schema.js";

export interface ChangeFacts {
  /** namespace.table */
  table: string;
  writer: "flink" | "connect" | "unknown";
  /** The table's current properties. */
  properties?: Readonly<Record<string, string>>;
  connector?: string;
  /** The connector's current config. */
  connectorConfig?: Readonly<Record<string, string>>;
  /** Lowest value a key may be proposed at, from what the evidence shows (e.g. snapshots to keep). */
  minimums?: Readonly<Record<string, number>>;
  /** The named catalog holding the table, when the bot reads named catalogs. */
  catalogSource?: string;
  /** The Connect cluster running the connector, when the bot reads named clusters. */
  connectCluster?: string;
  /** Extra template values (catalog, flinkJob, partitionColumn, command…). */
  vars?: Partial<Record<TemplateVariable, string>>;
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

/** The change a step proposes for these facts, or undefined when no variant fits the writer. */
export function proposeChange(step: Step, facts: ChangeFacts): Change | undefined {
  const variant = chooseVariant(step, facts);
  return variant ? changeFromTemplate(variant, facts) : undefined;
}

/** A change the bot can undo itself with one atomic call (the walk's revert, autopilot's marks). */
export function isReversible<C extends { kind: string }>(
  change: C,
): change is Extract<C, { kind: "table-properties" | "connector-config" }> {
  return change.kind === "table-properties" || change.kind === "connector-config";
}

/** Whether the bot carries the step out itself once approved. */
export function isAutomatic(step: Step, change: Change): boolean {
  // A manual change is always a person's; every other kind (a read-only check included) is the bot's.
  return step.automatic && change.kind !== "manual";
}

function changeFromTemplate(variant: ChangeTemplate, facts: ChangeFacts): Change {
  switch (variant.kind) {
    case "table-properties": {
      const current = facts.properties ?? {};
      const changes = propertyChanges(variant.set, current, TABLE_DEFAULTS, facts.minimums);
      if (changes.length === 0) return alreadyInPlace(variant.set, current, TABLE_DEFAULTS, facts.table);
      return {
        kind: "table-properties",
        table: facts.table,
        ...(facts.catalogSource ? { catalogSource: facts.catalogSource } : {}),
        changes,
      };
    }
    case "connector-config": {
      const current = facts.connectorConfig ?? {};
      const changes = propertyChanges(variant.set, current, CONNECT_DEFAULTS, facts.minimums);
      const connector = facts.connector ?? "";
      if (changes.length === 0) return alreadyInPlace(variant.set, current, CONNECT_DEFAULTS, connector);
      return {
        kind: "connector-config",
        connector,
        ...(facts.connectCluster ? { cluster: facts.connectCluster } : {}),
        changes,
      };
    }
    case "connector-restart":
      return {
        kind: "connector-restart",
        connector: facts.connector ?? "",
        ...(facts.connectCluster ? { cluster: facts.connectCluster } : {}),
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
      return { kind: "read-only-check", language: "text", checklist: variant.checklist };
  }
}

/** The number a key has now: its own value, else the documented default, else undefined. */
function effective(
  current: Readonly<Record<string, string>>,
  defaults: Readonly<Record<string, string>>,
  key: string,
): number | undefined {
  for (const raw of [current[key], defaults[key]]) {
    if (raw === undefined || raw.trim() === "") continue;
    const n = Number(raw);
    if (Number.isFinite(n)) return n;
  }
  return undefined;
}

function propertyChanges(
  templates: readonly PropertyTemplate[],
  current: Readonly<Record<string, string>>,
  defaults: Readonly<Record<string, string>>,
  minimums: Readonly<Record<string, number>> = {},
): PropertyChange[] {
  const out: PropertyChange[] = [];
  for (const template of templates) {
    const now = current[template.key] ?? null;
    const proposed = proposedValue(template, effective(current, defaults, template.key), minimums);
    if (proposed === undefined) continue;
    out.push({ key: template.key, current: now, proposed });
    if (template.budget) {
      const budget = budgetChange(template.budget, Number(proposed), current, defaults);
      if (budget) out.push(budget);
    }
  }
  return out;
}

/**
 * Every value the step would set is already in place (an at-least value already met): nothing is
 * left to apply, so the step says so for a person to read instead of proposing an empty change.
 */
function alreadyInPlace(
  templates: readonly PropertyTemplate[],
  current: Readonly<Record<string, string>>,
  defaults: Readonly<Record<string, string>>,
  where: string,
): Change {
  const values = templates.map((t) => `${t.key} = ${current[t.key] ?? defaults[t.key] ?? "(unset)"}`);
  return {
    kind: "manual",
    language: "text",
    checklist: [
      `Already in place on ${where}: ${values.join(", ")} (the step asks for at least ${templates.map((t) => t.value).join(", ")}). Nothing to change.`,
      "If the writer still fails, this step is not the cause: mark it done and the playbook moves on.",
    ],
  };
}

/** undefined: the key is fine as it is (an at-least value already met). */
function proposedValue(
  template: PropertyTemplate,
  now: number | undefined,
  minimums: Readonly<Record<string, number>>,
): string | undefined {
  if (template.mode === "set") return template.value;
  const floor = Math.max(Number(template.value), minimums[template.key] ?? 0);
  if (now === undefined || now < floor) return String(floor);
  if (template.mode === "at-least") return undefined;
  // raise: double, up to the cap, and never below what is set (a cap under it keeps it).
  const cap = template.max === undefined ? Number.POSITIVE_INFINITY : Number(template.max);
  return String(Math.max(now, Math.min(now * 2, cap)));
}

function budgetChange(
  budget: NonNullable<PropertyTemplate["budget"]>,
  attempts: number,
  current: Readonly<Record<string, string>>,
  defaults: Readonly<Record<string, string>>,
): PropertyChange | undefined {
  const perAttempt = effective(current, defaults, budget.perAttempt);
  const total = effective(current, defaults, budget.total);
  if (perAttempt === undefined || total === undefined || attempts <= 0) return undefined;
  if (attempts * perAttempt <= total) return undefined;
  return {
    key: budget.perAttempt,
    current: current[budget.perAttempt] ?? null,
    proposed: String(Math.floor(total / attempts)),
  };
}

function templateVars(facts: ChangeFacts): Record<string, string> {
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
