import { describe, expect, it } from "vitest";
import { inspectConfig, loadConfig } from "../../../src/config.js";
import { policyStepProblems } from "../../../src/core/autopilot/policy.js";
import { parsePlaybook } from "../../../src/core/remediation/load.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

const problemsOf = (yaml: string) => inspectConfig({ BOT_CONFIG: yaml }).problems;

describe("BOT_CONFIG autopilot:", () => {
  it("is off unless written", () => {
    expect(loadConfig({}).bot.autopilot.mode).toBe("off");
  });

  it("reads a policy and remembers each policy line's place for the announcement", () => {
    const config = loadConfig({
      BOT_CONFIG: `autopilot:
  mode: shadow
  policies:
    - name: night-retries
      tables: [{ catalog: prod, namespace: db, name: "events*" }]
      steps: [raise-commit-retries]
      hours: "22:00-06:00"
`,
    });
    expect(config.bot.autopilot.policies[0]).toMatchObject({ name: "night-retries", perTablePerDay: 1 });
    expect(config.autopilotLines).toEqual({ "night-retries": "BOT_CONFIG:4" });
  });

  it("names each problem with its file and line", () => {
    const problems = problemsOf(`autopilot:
  mode: sometimes
  holdOffSecs: 10
  policies:
    - name: Night
      tables: []
      steps: [reboot-everything]
      hours: "late"
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/autopilot\.mode: .*\(at BOT_CONFIG:2\)/),
        expect.stringMatching(/autopilot\.holdOffSecs: unknown key .*holdOffSeconds.*\(at BOT_CONFIG:3\)/),
        expect.stringMatching(/autopilot\.policies\.0\.name: a short kebab-case name \(at BOT_CONFIG:5\)/),
        expect.stringMatching(/autopilot\.policies\.0\.tables: .*\(at BOT_CONFIG:6\)/),
        expect.stringMatching(
          /autopilot\.policies\.0\.steps\.0: unknown step id "reboot-everything" \(at BOT_CONFIG:7\)/,
        ),
        expect.stringMatching(/autopilot\.policies\.0\.hours: a UTC window .*\(at BOT_CONFIG:8\)/),
      ]),
    );
  });

  it("refuses a mode without a policy", () => {
    expect(problemsOf("autopilot:\n  mode: on\n")).toEqual([
      expect.stringMatching(/autopilot\.mode: mode on needs at least one policy \(at BOT_CONFIG:2\)/),
    ]);
  });

  it("allows only steps the playbooks mark reversible and low risk", () => {
    const config = loadConfig({
      BOT_CONFIG: `autopilot:
  mode: on
  policies:
    - name: p
      tables: [{ namespace: db }]
      steps: [raise-commit-retries, idempotent-restart, review-isolation-level]
`,
    });
    expect(policyStepProblems(config.bot.autopilot, PLAYBOOKS).map((p) => p.path.join("."))).toEqual([
      "autopilot.policies.0.steps.1",
      "autopilot.policies.0.steps.2",
    ]);
  });
});

describe("the playbook's autopilot marks", () => {
  const step = (marks: string, kind = "table-properties", extra = "") => `kind: steps
id: p
title: P
terminals: [{ id: done, outcome: resolved, title: Done }]
steps:
  - id: raise-commit-retries
    title: T
    selectedBy: [competing-appends]
    why: W
    risk: R
    automatic: true
${extra}${marks}
    changes:
      - kind: ${kind}
${kind === "connector-restart" ? "" : "        set: [{ key: k, value: v }]\n"}    verify: { signals: [writer-snapshots-resume] }
    transitions: { recovered: done, ineffective: [done] }
`;

  it("accepts reversible and lowRisk on a property change", () => {
    expect(parsePlaybook(step("    reversible: true\n    lowRisk: true"), "p.yaml").problems).toEqual([]);
  });

  it("refuses marks the step cannot honour, at their line", () => {
    const restart = parsePlaybook(step("    reversible: true", "connector-restart"), "p.yaml").problems;
    expect(restart).toEqual([
      expect.objectContaining({ line: 12, message: expect.stringMatching(/reversible needs/) }),
    ]);
    const lowOnly = parsePlaybook(step("    lowRisk: true"), "p.yaml").problems;
    expect(lowOnly[0]?.message).toMatch(/lowRisk needs reversible: true/);
    const risky = parsePlaybook(
      step(
        "    reversible: true\n    lowRisk: true",
        "table-properties",
        "    risky: true\n    confirmations: [correctness]\n",
      ),
      "p.yaml",
    ).problems;
    expect(risky[0]?.message).toMatch(/cannot be low risk/);
  });
});
