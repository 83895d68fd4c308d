// Parses one playbook file from text (the caller reads the file): YAML syntax, then the zod
// schema, then the step graph. Every problem carries the file and the line it points at, so
// `playbooks lint` can say exactly where to look.

import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { lineOfPath } from "../yaml-lines.js";
import { isReversible } from "./change.js";
import {
  type Playbook,
  type PlaybookFile,
  PlaybookFileSchema,
  type PlaybookProblem,
  TEMPLATE_VARIABLES,
} from "./schema.js";

export interface ParseResult {
  playbook?: PlaybookFile;
  problems: PlaybookProblem[];
}

export function parsePlaybook(text: string, file: string): ParseResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;

  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((error) => ({
        file,
        line: error.linePos?.[0].line ?? lineAt(error.pos[0]),
        message: `YAML syntax: ${firstLine(error.message)}`,
      })),
    };
  }
  const locate: Locate = (path) => lineOfPath({ isMap, isScalar, isSeq }, doc, path, lineAt);
  const parsed = PlaybookFileSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((issue) => ({
        file,
        line: locate(issue.path),
        message: `${issue.path.length > 0 ? issue.path.join(".") : "(file)"}: ${issue.message}`,
      })),
    };
  }
  const problems =
    parsed.data.kind === "steps"
      ? checkStepGraph(parsed.data, file, locate)
      : checkAuditFixes(parsed.data, file, locate);
  problems.sort((a, b) => a.line - b.line);
  return problems.length > 0 ? { problems } : { playbook: parsed.data, problems };
}

type Locate = (path: readonly PropertyKey[]) => number;

type Add = (path: readonly PropertyKey[], message: string) => void;
type StepsById = Map<string, Playbook["steps"][number]>;

function checkStepGraph(playbook: Playbook, file: string, locate: Locate): PlaybookProblem[] {
  const problems: PlaybookProblem[] = [];
  const add: Add = (path, message) => problems.push({ file, line: locate(path), message });
  const terminals = new Set(playbook.terminals.map((t) => t.id));
  const steps: StepsById = new Map(playbook.steps.map((s) => [s.id as string, s]));
  checkTerminals(playbook, steps, add);
  checkSteps(playbook, terminals, steps, add);
  checkReachable(playbook, steps, add);
  checkEnds(playbook, terminals, add);
  return problems;
}

function checkTerminals(playbook: Playbook, steps: StepsById, add: Add): void {
  if (playbook.terminals.length === 0) {
    add(
      ["steps"],
      "the playbook declares no terminal state; add `terminals:` with at least one resolved outcome",
    );
  } else if (!playbook.terminals.some((t) => t.outcome === "resolved")) {
    add(["terminals"], "no terminal has outcome `resolved`; a recovered step has nowhere to end");
  }
  const seenTerminals = new Set<string>();
  playbook.terminals.forEach((t, i) => {
    if (seenTerminals.has(t.id)) add(["terminals", i, "id"], `duplicate terminal id ${t.id}`);
    if (steps.has(t.id)) add(["terminals", i, "id"], `terminal id ${t.id} is also a step id`);
    seenTerminals.add(t.id);
  });
}

function checkSteps(playbook: Playbook, terminals: Set<string>, steps: StepsById, add: Add): void {
  const seenSteps = new Set<string>();
  playbook.steps.forEach((step, i) => {
    if (seenSteps.has(step.id)) add(["steps", i, "id"], `duplicate step id ${step.id}`);
    seenSteps.add(step.id);
    if (step.risky && step.confirmations.length === 0) {
      add(
        ["steps", i, "risky"],
        `risky step ${step.id} must list at least one confirmation (e.g. correctness)`,
      );
    }
    for (const problem of autopilotMarkProblems(step))
      add(["steps", i, problem.key], `step ${step.id}: ${problem.message}`);
    const recovered = step.transitions.recovered;
    if (!terminals.has(recovered)) {
      const what = steps.has(recovered)
        ? "a step, not a terminal state"
        : "not a terminal state in this playbook";
      add(
        ["steps", i, "transitions", "recovered"],
        `step ${step.id}: recovered leads to ${recovered}, which is ${what}`,
      );
    }
    step.transitions.ineffective.forEach((target, j) => {
      if (!terminals.has(target) && !steps.has(target)) {
        add(
          ["steps", i, "transitions", "ineffective", j],
          `step ${step.id}: transition to ${target}, which is neither a step nor a terminal in this playbook`,
        );
      }
      if (target === step.id)
        add(["steps", i, "transitions", "ineffective", j], `step ${step.id} leads to itself`);
    });
    step.changes.forEach((change, j) => {
      const statement = change.kind === "manual" ? change.statement : undefined;
      for (const name of unknownPlaceholders(statement)) {
        add(["steps", i, "changes", j, "statement"], `step ${step.id}: unknown placeholder {${name}}`);
      }
    });
  });
}

function checkReachable(playbook: Playbook, steps: StepsById, add: Add): void {
  // Reachability: a step is an entry when a finding selects it; the rest need an incoming edge.
  const reached = new Set<string>();
  const queue = playbook.steps
    .filter((s) => s.selectedBy.length > 0 || s.otherwiseSelectedBy.length > 0)
    .map((s) => s.id as string);
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (reached.has(id)) continue;
    reached.add(id);
    for (const target of steps.get(id)?.transitions.ineffective ?? []) {
      if (steps.has(target) && !reached.has(target)) queue.push(target);
    }
  }
  playbook.steps.forEach((step, i) => {
    if (!reached.has(step.id)) {
      add(
        ["steps", i, "id"],
        `step ${step.id} is unreachable: no finding selects it and no reachable step leads to it`,
      );
    }
  });
}

function checkEnds(playbook: Playbook, terminals: Set<string>, add: Add): void {
  // Every step must be able to end: some chain of transitions reaches a terminal.
  if (terminals.size === 0) return;
  const ends = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const step of playbook.steps) {
      if (ends.has(step.id)) continue;
      if (step.transitions.ineffective.some((t) => terminals.has(t) || ends.has(t))) {
        ends.add(step.id);
        grew = true;
      }
    }
  }
  playbook.steps.forEach((step, i) => {
    if (!ends.has(step.id)) {
      add(
        ["steps", i, "transitions"],
        `step ${step.id} never reaches a terminal state when it does not help`,
      );
    }
  });
}

function checkAuditFixes(
  fixes: Extract<PlaybookFile, { kind: "audit-fixes" }>,
  file: string,
  locate: Locate,
): PlaybookProblem[] {
  const problems: PlaybookProblem[] = [];
  for (const [checkId, fix] of Object.entries(fixes.fixes)) {
    for (const name of unknownPlaceholders(fix?.statement)) {
      problems.push({
        file,
        line: locate(["fixes", checkId, "statement"]),
        message: `fix for ${checkId}: unknown placeholder {${name}}`,
      });
    }
  }
  return problems;
}

const KNOWN = new Set<string>(TEMPLATE_VARIABLES);

function unknownPlaceholders(template: string | undefined): string[] {
  if (!template) return [];
  return [...template.matchAll(/\{([A-Za-z]+)\}/g)]
    .map((m) => m[1] as string)
    .filter((name) => !KNOWN.has(name));
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/**
 * The autopilot marks must be true of the step: reversible only when every change the bot makes is
 * one it can revert, low risk only on a reversible step that one approver may approve.
 */
function autopilotMarkProblems(step: Playbook["steps"][number]): Array<{ key: string; message: string }> {
  const out: Array<{ key: string; message: string }> = [];
  const made = step.changes.filter((c) => c.kind !== "manual" && c.kind !== "read-only-check");
  if (step.reversible && (!step.automatic || made.length === 0 || !made.every(isReversible)))
    out.push({
      key: "reversible",
      message: "reversible needs an automatic step whose changes are table-properties or connector-config",
    });
  if (step.lowRisk && !step.reversible)
    out.push({ key: "lowRisk", message: "lowRisk needs reversible: true" });
  if (step.lowRisk && (step.risky || step.confirmations.length > 0))
    out.push({ key: "lowRisk", message: "a risky step (two approvers, confirmations) cannot be low risk" });
  return out;
}
