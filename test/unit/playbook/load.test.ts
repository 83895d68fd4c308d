import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultPlaybooksDir, lintPlaybooks, loadPlaybooks } from "../../../src/adapters/playbooks/files.js";
import { AUDIT_CHECK_IDS, type FindingId, STEP_IDS, type StepId } from "../../../src/core/ids.js";
import { parsePlaybook } from "../../../src/core/remediation/load.js";
import { CodedError, ErrorCode } from "../../../src/errors.js";

const FIXTURES = "test/fixtures/playbooks";

// RUNBOOK §4: which findings choose each step, whether the bot can apply it, and the risky one.
const RUNBOOK: Record<StepId, { selectedBy: FindingId[]; automatic: boolean; risky?: true }> = {
  "check-checkpoints": { selectedBy: ["commit-not-attempted"], automatic: false },
  "verify-unknown-commit": { selectedBy: ["commit-state-unknown"], automatic: true },
  "remove-duplicate-commit": { selectedBy: ["commit-state-unknown"], automatic: false },
  "confirm-recommit": { selectedBy: ["commit-state-unknown"], automatic: false },
  "raise-commit-retries": { selectedBy: ["competing-appends", "default-retry-budget"], automatic: true },
  "commit-less-often": { selectedBy: ["frequent-commits"], automatic: true },
  "move-compaction-off-hot-partitions": { selectedBy: ["rewrite-in-window"], automatic: false },
  "keep-writer-last-snapshot": { selectedBy: ["writer-last-snapshot-at-risk"], automatic: true },
  "one-committer-per-table": {
    selectedBy: ["multiple-flink-jobs", "committers-inside-job"],
    automatic: false,
  },
  "restart-connect-coordinator": { selectedBy: ["connect-coordinator-stopped"], automatic: true },
  "review-isolation-level": {
    selectedBy: ["validation-conflict", "row-level-in-window"],
    automatic: true,
    risky: true,
  },
  "apply-schema-first": { selectedBy: ["schema-churn"], automatic: false },
  "idempotent-restart": { selectedBy: [], automatic: false },
  "renew-catalog-credential": { selectedBy: ["commit-error"], automatic: false },
  "check-catalog-service": { selectedBy: ["commit-error"], automatic: false },
  "raise-writer-memory": { selectedBy: ["commit-error"], automatic: false },
  "fix-writer-error": { selectedBy: ["commit-error"], automatic: false },
};

describe("the shipped playbooks", () => {
  it("lint clean", async () => {
    const result = await lintPlaybooks("playbooks");
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("are found from the module when no directory is given", async () => {
    expect(defaultPlaybooksDir()).toBe(join(process.cwd(), "playbooks"));
    const set = await loadPlaybooks();
    expect(set.playbooks.map((p) => p.id)).toEqual(["commit-failures"]);
  });

  it("define every runbook step exactly once, with the runbook's selectors, automation and risk", async () => {
    const set = await loadPlaybooks("playbooks");
    const steps = set.playbooks.flatMap((p) => p.steps);
    expect(steps.map((s) => s.id).sort()).toEqual([...STEP_IDS].sort());
    for (const step of steps) {
      const expected = RUNBOOK[step.id];
      expect({ id: step.id, selectedBy: [...step.selectedBy].sort(), automatic: step.automatic }).toEqual({
        id: step.id,
        selectedBy: [...expected.selectedBy].sort(),
        automatic: expected.automatic,
      });
      expect(step.risky).toBe(expected.risky === true);
    }
  });

  it("gives each commit-error class its own step (RUNBOOK §4 step 2)", async () => {
    const set = await loadPlaybooks("playbooks");
    const byCause = set.playbooks
      .flatMap((p) => p.steps)
      .filter((s) => s.selectedBy.includes("commit-error"))
      .map((s) => [s.id, s.selectedForCause]);
    expect(byCause).toEqual([
      ["renew-catalog-credential", ["auth"]],
      ["check-catalog-service", ["unavailable"]],
      ["raise-writer-memory", ["resources"]],
      ["fix-writer-error", ["writer-error"]],
    ]);
  });

  it("requires the correctness confirmation on the risky step", async () => {
    const set = await loadPlaybooks("playbooks");
    const step = set.playbooks[0]?.steps.find((s) => s.id === "review-isolation-level");
    expect(step?.confirmations).toContain("correctness");
    expect(step?.changes[0]).toMatchObject({ kind: "table-properties" });
  });

  it("has one audit fix per audit check", async () => {
    const set = await loadPlaybooks("playbooks");
    expect(Object.keys(set.auditFixes).sort()).toEqual([...AUDIT_CHECK_IDS].sort());
  });
});

describe("bad playbooks are rejected with file and line", () => {
  const cases: { file: string; line: number; message: RegExp }[] = [
    { file: "malformed.yaml", line: 10, message: /YAML syntax/ },
    {
      file: "dangling.yaml",
      line: 24,
      message: /transition to commit-less-often, which is neither a step nor a terminal/,
    },
    { file: "unreachable.yaml", line: 25, message: /apply-schema-first is unreachable/ },
    { file: "no-terminal.yaml", line: 5, message: /declares no terminal state/ },
  ];
  for (const c of cases) {
    it(c.file, () => {
      const path = join(FIXTURES, c.file);
      const result = parsePlaybook(readFileSync(path, "utf8"), path);
      expect(result.playbook).toBeUndefined();
      expect(result.problems).toContainEqual({
        file: path,
        line: c.line,
        message: expect.stringMatching(c.message),
      });
    });
  }

  it("lint reports every bad file of a directory", async () => {
    const result = await lintPlaybooks(FIXTURES);
    expect(result.ok).toBe(false);
    const files = new Set(result.problems.map((p) => p.file));
    for (const c of cases) expect(files).toContain(join(FIXTURES, c.file));
  });

  it("loading refuses to start with a coded error listing file:line", async () => {
    const error = await loadPlaybooks(FIXTURES).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodedError);
    expect((error as CodedError).code).toBe(ErrorCode.PlaybookInvalid);
    expect((error as CodedError).message).toContain(`${join(FIXTURES, "dangling.yaml")}:24:`);
    expect((error as CodedError).hint).toContain("playbooks lint");
  });

  it("points schema errors at the offending line", () => {
    const text = [
      "kind: steps",
      "id: bad-ids",
      "title: Unknown ids",
      "terminals: [{ id: resolved, outcome: resolved, title: ok }]",
      "steps:",
      "  - id: raise-the-roof",
      "    title: Nope",
      "    selectedBy: [commit-conflict, not-a-finding]",
    ].join("\n");
    const { problems } = parsePlaybook(text, "bad.yaml");
    expect(problems).toContainEqual({
      file: "bad.yaml",
      line: 6,
      message: expect.stringMatching(/unknown step id "raise-the-roof"/),
    });
    expect(problems).toContainEqual({
      file: "bad.yaml",
      line: 8,
      message: expect.stringMatching(/unknown finding id "not-a-finding"/),
    });
  });

  it("rejects duplicate step ids, unknown placeholders and a risky step without confirmation", () => {
    const step = (id: string, extra = "") =>
      [
        `  - id: ${id}`,
        "    title: t",
        "    selectedBy: [frequent-commits]",
        "    why: w",
        "    risk: r",
        "    automatic: false",
        extra,
        "    changes: [{ kind: manual, statement: 'CALL {catalog}.x({tabel})' }]",
        "    verify: { signals: [writer-snapshots-resume] }",
        "    transitions: { recovered: resolved, ineffective: [resolved] }",
      ]
        .filter(Boolean)
        .join("\n");
    const text = [
      "kind: steps",
      "id: dupes",
      "title: Duplicates",
      "terminals: [{ id: resolved, outcome: resolved, title: ok }]",
      "steps:",
      step("commit-less-often"),
      step("commit-less-often", "    risky: true"),
    ].join("\n");
    const messages = parsePlaybook(text, "d.yaml").problems.map((p) => `${p.line}: ${p.message}`);
    expect(messages).toContain("15: duplicate step id commit-less-often");
    expect(messages).toContain("12: step commit-less-often: unknown placeholder {tabel}");
    expect(messages).toContain(
      "21: risky step commit-less-often must list at least one confirmation (e.g. correctness)",
    );
  });

  it("reports a directory that does not exist", async () => {
    const result = await lintPlaybooks(join(FIXTURES, "missing"));
    expect(result.ok).toBe(false);
    expect(result.problems[0]?.message).toMatch(/cannot read the playbooks directory \(ENOENT\)/);
  });
});
