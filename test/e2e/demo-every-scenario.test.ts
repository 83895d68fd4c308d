// `iceberg-bot demo <scenario>` for every scenario of the library: each one ends with exit 0 and
// a thread, whatever its path (a change the bot applies, two approvers, a step done by hand, the
// next step after one that did not help, or nothing to do and the audit instead). Demos run a few
// at a time with quick follow-ups so the whole library stays a short test.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type DemoEnd, runDemo } from "../../src/cli/demo.js";
import { listScenarios, loadScenario } from "../../src/sim/scenarios.js";
import { REDIS_URL } from "../support/redis.js";

const PARALLEL = 4;
// The threads' pictures go to one directory, removed after the run.
const pictures = mkdtempSync(join(tmpdir(), "demo-scenarios-"));
afterAll(() => rmSync(pictures, { recursive: true, force: true }));

interface Outcome {
  code: number;
  out: string;
  end?: DemoEnd;
}

/** Every text a message shows: its fallback text and the text of each block, nested or not. */
function shown(message: { text?: string; blocks?: unknown }): string {
  const parts = [message.text ?? ""];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) {
        if (key === "text" && typeof child === "string") parts.push(child);
        else visit(child);
      }
    }
  };
  visit(message.blocks);
  return parts.join("\n");
}

/** A declared writer's committer as the simulator names a snapshot's author. */
function committerOf(c: { kind: string; jobId?: string; connector?: string; appId?: string }): string {
  if (c.kind === "flink") return `flink:${c.jobId}`;
  if (c.kind === "connect") return `connect:${c.connector}`;
  if (c.kind === "spark") return `spark:${c.appId}`;
  return "anonymous";
}

async function runAll(names: readonly string[]): Promise<Map<string, Outcome>> {
  const results = new Map<string, Outcome>();
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      let out = "";
      let end: DemoEnd | undefined;
      const code = await runDemo({
        scenario: name,
        stdout: { write: (chunk: string) => (out += chunk) },
        env: { REDIS_URL },
        followUpIntervalMs: 150,
        outDir: pictures,
        onEnd: (e) => {
          end = e;
        },
      });
      results.set(name, { code, out, ...(end ? { end } : {}) });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

describe("demo of every scenario", () => {
  const names = listScenarios();
  let results: Map<string, Outcome>;

  it("runs all of them to the end", { timeout: 600_000 }, async () => {
    results = await runAll(names);
    const failed = [...results].filter(([, r]) => r.code !== 0).map(([n, r]) => `${n}:\n${r.out}`);
    expect(failed).toEqual([]);
  });

  it.each(names)("%s prints its thread and ends where the scenario leads", (name) => {
    const result = results.get(name);
    expect(result?.code, result?.out).toBe(0);
    const out = result?.out ?? "";
    const scenario = loadScenario(name);
    expect(out).toContain(`Demo: scenario ${name}, table ${scenario.table}`);
    expect(out).toMatch(/\[\d+\] print the thread\n\n\S/);
    expect(out).not.toContain("The demo stopped");
    if (scenario.faults.some((f) => f.service === "catalog")) {
      // The catalog stays down (or refuses the bot) for the whole demo: the thread says so first,
      // and no check can see the writer's commits resume, so the incident ends with a person,
      // never resolved; with no step (the bot's own access), there is nothing to do.
      expect(out).toMatch(/The Iceberg REST catalog (was unreachable|refused the bot's credential)/);
      if (scenario.expect.nextStep)
        expect(out).toMatch(
          /\[\d+\] (the playbook has no further step: |the bot could not read the table's snapshots, .*, and )the incident waits for a person \(stalled\)/,
        );
      else expect(out).toMatch(/\[\d+\] nothing to do: /);
      expect(out).not.toContain(`${scenario.table} — commits resumed`);
    } else if (scenario.expect.nextStep === null || scenario.expect.nextStep === undefined) {
      expect(out).toMatch(/\[\d+\] nothing to do: /);
      expect(out).toContain(`Audit of \`${scenario.table}\``);
    } else {
      // A writer that kept committing (an unknown commit already answered) was never stalled.
      const allAlong = scenario.writers
        .filter((w) => w.table === scenario.table)
        .every((w) => w.recoversWhen.when === "always");
      expect(out).toContain(`${scenario.table} — commits ${allAlong ? "flowing" : "resumed"}`);
      expect(out).toMatch(/\[\d+\] the writer commits again: the bot resolves the incident/);
    }
  });

  // "Resolved" is said only when the writer that failed commits again: the snapshot the recovery
  // names must be one the simulator attributes to a writer that was failing and has recovered —
  // never a twin that never failed, a backfill or a compaction.
  it.each(names)("%s resolves only when its failing writer recovered", (name) => {
    const result = results.get(name);
    const end = result?.end;
    expect(end, result?.out).toBeDefined();
    const thread = end?.thread ?? [];
    const root = thread[0];
    const resolved = /\(resolved\)\s*$/.test(root?.text ?? "");
    const recoveries = thread
      .map((m) => /First new snapshot `(\d+)`/.exec(shown(m))?.[1])
      .filter((id): id is string => id !== undefined);
    // Commits that were flowing before the change are no recovery: the snapshot named is the next
    // one of a writer that was committing all along, and the change takes no credit for it.
    const flowing = thread
      .map((m) => /Commits were flowing.*\n.*snapshot `(\d+)`/.exec(shown(m))?.[1])
      .filter((id): id is string => id !== undefined);
    if (!resolved) {
      expect(recoveries, "a recovery was posted but the incident is not resolved").toEqual([]);
      return;
    }
    expect(
      recoveries.length + flowing.length,
      "a resolved incident names the snapshot that shows the recovery",
    ).toBeGreaterThan(0);
    const table = loadScenario(name).table;
    for (const id of recoveries) {
      const author = end?.lakehouse.snapshotAuthor(table, id);
      expect(author, `snapshot ${id} is not in ${table}`).toBeDefined();
      expect(author?.operation).not.toBe("replace");
      expect(author?.writer, `${author?.committer} is no writer the scenario declares`).toBeDefined();
      expect(author?.writer?.failedAtStart, `${author?.committer} never failed`).toBe(true);
      expect(author?.writer?.recovered, `${author?.committer} did not recover`).toBe(true);
      // The first commit after the writer recovered, not the one a commit interval later.
      expect(author?.timestampMs, `snapshot ${id} is not the writer's first after it recovered`).toBe(
        author?.writer?.recoveredAtMs,
      );
    }
    for (const id of flowing) {
      const author = end?.lakehouse.snapshotAuthor(table, id);
      // It commits from the scenario's start: nothing the bot or a person did brought it back.
      const declared = loadScenario(name).writers.find(
        (w) => w.table === table && author?.committer === committerOf(w.committer),
      );
      expect(declared?.recoversWhen.when, `${author?.committer} was not committing all along`).toBe("always");
    }
  });

  it("does not resolve silently over a duplicate: the card keeps it open until someone marks it done", () => {
    const result = results.get("commit-state-unknown-duplicate");
    const thread = result?.end?.thread ?? [];
    const posted = thread.map(shown).join("\n");
    // The thread offers it as the step, with the statement that removes the duplicate's files.
    expect(posted).toMatch(/Remove the duplicate commit: snapshot \d+ holds the same data/);
    expect(posted).toMatch(/\.entries\s+WHERE snapshot_id = \d+ AND status = 1/);
    // Done by hand on that step marks its open item done in the same press: no second click.
    expect(result?.out).not.toContain("Mark done");
    // The card: resolved, with who did it.
    const card = shown(thread[0] ?? {});
    expect(card).toMatch(/\*Done:\* Remove the duplicate commit: snapshot \d+ .*\(<@U0DEMOONCALL> <!date\^/);
    expect(thread[0]?.text).toMatch(/\(resolved\)$/);
  });

  it("a read-only check answers at its first look and never ends in No recovery", () => {
    let seen = 0;
    for (const name of names) {
      const thread = results.get(name)?.end?.thread ?? [];
      const readOnly = thread.filter((m) => /the bot checks this itself/i.test(shown(m)));
      if (readOnly.length === 0) continue;
      seen += 1;
      const posted = thread.map(shown).join("\n");
      expect(posted, name).not.toMatch(/No recovery:\* after \d+ checks, \*check whether the commit landed/);
      if (/\*Checked:\* check whether the commit landed/.test(posted))
        expect(posted, name).toMatch(/check 1 of \d+: no new snapshot/);
    }
    expect(seen).toBeGreaterThan(0);
  });

  it("a check that cannot read the snapshots says so and offers nothing that restarts (catalog down)", () => {
    const result = results.get("catalog-down-flink-failing");
    const posted = (result?.end?.thread ?? []).map(shown).join("\n");
    // The source and its error, not a claim about the writer's commits.
    expect(posted).toMatch(/could not read the table's snapshots \(Iceberg REST catalog answered HTTP 503/);
    expect(posted).not.toMatch(/no new snapshot from|has not committed since|No recovery/);
    // RUNBOOK rule 1: nothing is restarted before it is known whether the last commit landed.
    expect(posted).not.toMatch(/Next step: Restart|Restart the writer without duplicating data/);
    expect(result?.out).not.toMatch(/Done by hand/);
    expect(result?.out).toMatch(/whether the last commit landed is unknown: nothing is restarted or changed/);
  });

  it.each([
    "commit-state-unknown-duplicate",
    "commit-state-unknown-resumed",
    "unknown-commit-across-savepoint",
  ])("%s: a writer already committing is told as such; the step takes no credit", (name) => {
    const thread = results.get(name)?.end?.thread ?? [];
    const posted = thread.map(shown).join("\n");
    expect(posted).toMatch(/\*Commits were flowing\*/);
    expect(posted).not.toMatch(/Recovered:\*|Fixed by:|commits resumed \d+ (s|min) after the change/);
    expect(shown(thread[0] ?? {})).toMatch(/\*Commits were flowing:\* the writer kept committing/);
    // The work that remains is the step's: its one Done by hand press marks it done on the card.
    expect(shown(thread[0] ?? {})).toMatch(
      /\*Done:\* (Remove the duplicate commit|Confirm the data of the commit)/,
    );
    if (name === "commit-state-unknown-duplicate")
      expect(posted).toMatch(/Commits were flowing\*; one unknown commit landed twice/);
    // No duplicate was found: the in-flight commit did not land, so nothing landed twice.
    else expect(posted).not.toMatch(/landed twice/);
  });

  it("a step done by hand counts commits from its proposal, and says so", () => {
    const posted = (results.get("rewrite-in-window")?.end?.thread ?? []).map(shown).join("\n");
    expect(posted).toMatch(/after the proposal \(done by hand\)/);
  });

  it("approves with a reason that names the finding and the step", () => {
    const out = results.get("competing-appends")?.out ?? "";
    expect(out).toMatch(
      /Applied by @U0DEMOONCALL at \d\d:\d\d UTC: .*Spark app .*Give the writer a larger commit retry budget/,
    );
    const connect = results.get("connect-coordinator-stopped")?.out ?? "";
    expect(connect).toMatch(
      /Applied by @U0DEMOONCALL at \d\d:\d\d UTC: .*Restart the failed Kafka Connect tasks/,
    );
    expect(connect).toMatch(
      /restarts the connector's failed tasks \(POST \/connectors\/events-sink\/restart/,
    );
  });

  it("gets a second approver for a risky step", () => {
    const out = results.get("validation-conflict")?.out ?? "";
    expect(out).toContain("needs a second person: <@U0DEMOLEAD> approves it too");
    // Both approvers and both reasons stay on the applied proposal.
    expect(out).toMatch(
      /Applied at \d\d:\d\d UTC, approved by:\n\s*1\. @U0DEMOONCALL at \d\d:\d\d UTC: .+\n\s*2\. @U0DEMOLEAD at \d\d:\d\d UTC: Second approval/,
    );
  });

  it("plays a step done by hand: what a person runs, then Done", () => {
    const out = results.get("rewrite-in-window")?.out ?? "";
    expect(out).toMatch(/one a person carries out by hand: Compact only the partitions/);
    expect(out).toMatch(/\n {6}CALL spark_catalog\.system\.rewrite_data_files\(/);
    expect(out).toMatch(/Done by hand by @U0DEMOONCALL/);
  });

  it("asks for the next step once a read-only check has answered", () => {
    const out = results.get("commit-state-unknown")?.out ?? "";
    expect(out).toMatch(
      /without approval\n\[\d+\] the check has answered \(it changes nothing, so there is nothing to recover from\); <@U0DEMOONCALL> asks for the next step/,
    );
  });
});
