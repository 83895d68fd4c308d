import { afterEach, describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { loadScenario } from "../../../src/sim/scenarios.js";
import {
  ALICE,
  BOB,
  CHANNEL,
  type ServiceHarness,
  type ServiceHarnessOptions,
  startServiceHarness,
  until,
} from "./harness.js";

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function proposed(label: string, options: ServiceHarnessOptions = {}) {
  h = await startServiceHarness(label, options);
  const { incidentId, rootTs, value } = await h.openProposal();
  return { incidentId, rootTs, stepId: value.stepId, value };
}

const phaseOf = async (incidentId: string) => (await h!.walks.get(incidentId))?.value.walk.current?.phase;
const threadText = (rootTs: string) =>
  h!.standIn
    .thread(CHANNEL, rootTs)
    .map((m) => `${m.text} ${JSON.stringify(m.blocks)}`)
    .join("\n");
const ephemeralsTo = (user: string) => h!.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === user);

describe("remediation when things go wrong", () => {
  it("needs a second approver for a risky step: self-approval and a missing confirmation are refused", async () => {
    const { incidentId, stepId, value } = await proposed("rem-risky", { scenario: "validation-conflict" });
    expect(stepId).toBe("review-isolation-level");
    await h!.remediation.openApply(value, ALICE, await h!.applyForm("t1"));
    expect(JSON.stringify(h!.standIn.views.opened[0])).toContain("apply_confirm");

    await h!.remediation.submitApproval(value, ALICE, "merge job tolerates it", false);
    await until(
      () => ephemeralsTo(ALICE).some((m) => /confirm: correctness/.test(m.text)),
      "missing confirmation",
    );
    await h!.remediation.submitApproval(value, ALICE, "merge job tolerates it", true);
    await until(
      () => ephemeralsTo(ALICE).some((m) => /someone else must approve/.test(m.text)),
      "first approval",
    );
    await h!.remediation.submitApproval(value, ALICE, "me again", true);
    await until(() => ephemeralsTo(ALICE).some((m) => /second approver other than you/.test(m.text)), "self");
    expect(await phaseOf(incidentId)).toBe("proposed");
    expect(h!.catalogCommits()).toBe(0);
    const refusals = (await h!.audit.list(h!.table)).filter(
      (r) => r.actor === ALICE && r.outcome === "refused",
    );
    expect(refusals).toHaveLength(2);

    await h!.remediation.submitApproval(value, BOB, "checked the MERGE", true);
    await until(async () => (await phaseOf(incidentId)) === "applied", "applied after the second approver");
    expect(h!.catalogCommits()).toBe(1);
  });

  it("a worker that dies between applying and recording does not apply twice", async () => {
    let crashes = 0;
    const { incidentId, value } = await proposed("rem-crash", {
      afterApply: async () => {
        if (crashes++ === 0) throw new Error("worker lost between the catalog commit and recording it");
      },
    });
    await h!.remediation.submitApproval(value, ALICE, "go", false);
    await until(async () => (await phaseOf(incidentId)) === "applied", "applied after the retry");
    expect(crashes).toBe(2);
    expect(h!.catalogCommits()).toBe(1);
    const record = (await h!.walks.get(incidentId))!.value;
    expect(record.walk.current?.previous).toEqual({
      "commit.retry.num-retries": null,
      "commit.retry.min-wait-ms": null,
    });
  });

  it("a 409 from the catalog is reported and the step is proposed again with fresh values", async () => {
    const { incidentId, rootTs, value } = await proposed("rem-409");
    h!.lakehouse.faults.inject({
      service: "catalog",
      method: "POST",
      path: "^/v1/.*/tables/events$",
      kind: "status",
      status: 409,
      times: 1,
    });
    await h!.remediation.submitApproval(value, ALICE, "go", false);
    await until(() => /was not applied: Another commit landed/.test(threadText(rootTs)), "the conflict note");
    const record = await until(async () => {
      const r = (await h!.walks.get(incidentId))?.value;
      return r && r.proposals.length === 2 && r.walk.current?.phase === "proposed" ? r : undefined;
    }, "the refreshed proposal");
    expect(record.proposals[1]?.stepId).toBe("raise-commit-retries");
    const props = h!.lakehouse.state().tables.find((t) => t.name === "db.events")?.properties ?? {};
    expect(props["commit.retry.num-retries"]).toBeUndefined();
    // The first proposal's buttons are out of date now.
    await h!.remediation.submitApproval(value, BOB, "old button", false);
    await until(() => ephemeralsTo(BOB).some((m) => /out of date/.test(m.text)), "stale refusal");
  });

  it("a refresh after a conflict recomputes the raise from the values now: it never lowers retries", async () => {
    const { incidentId, rootTs, value } = await proposed("rem-raise");
    const first = (await h!.walks.get(incidentId))!.value.walk.current!;
    expect(first.change).toMatchObject({
      changes: expect.arrayContaining([{ key: "commit.retry.num-retries", current: null, proposed: "10" }]),
    });
    // Someone raises retries to 30 by hand before the approval.
    const catalog = createEvidencePorts(h!.config).catalog!;
    const ref = { namespace: ["db"], name: "events" };
    const before = await catalog.loadTable(ref);
    await catalog.commitProperties(ref, {
      expectedUuid: before.uuid,
      set: { "commit.retry.num-retries": "30" },
      remove: [],
    });
    await h!.remediation.submitApproval(value, ALICE, "go", false);
    await until(() => /was not applied/.test(threadText(rootTs)), "the conflict note");
    const record = await until(async () => {
      const r = (await h!.walks.get(incidentId))?.value;
      return r && r.proposals.length === 2 && r.walk.current?.phase === "proposed" ? r : undefined;
    }, "the refreshed proposal");
    const change = record.walk.current!.change;
    expect(change.kind).toBe("table-properties");
    const retries = change.kind === "table-properties" ? change.changes[0] : undefined;
    expect(retries).toEqual({ key: "commit.retry.num-retries", current: "30", proposed: "50" });
    expect(record.walk.current!.target?.values["commit.retry.num-retries"]).toBe("30");
  });

  it("a table recreated between proposal and approval is refused and proposed afresh for the new uuid", async () => {
    const { incidentId, rootTs, value } = await proposed("rem-uuid");
    const pinned = h!.lakehouse.state().tables.find((t) => t.name === "db.events")?.uuid;
    h!.lakehouse.recreateTable("db.events");
    const recreated = h!.lakehouse.state().tables.find((t) => t.name === "db.events")!;
    expect(recreated.uuid).not.toBe(pinned);

    await h!.remediation.submitApproval(value, ALICE, "go", false);
    await until(
      () => /is a different table now/.test(threadText(rootTs)) || h!.catalogCommits() > 0,
      "the refusal",
    );
    expect(h!.catalogCommits()).toBe(0);
    expect(threadText(rootTs)).toMatch(/is a different table now/);
    const record = await until(async () => {
      const r = (await h!.walks.get(incidentId))?.value;
      return r && r.proposals.length === 2 && r.walk.current?.phase === "proposed" ? r : undefined;
    }, "the fresh proposal");
    expect(record.walk.current!.target?.uuid).toBe(recreated.uuid);
    expect(h!.catalogCommits()).toBe(0);
    const props = h!.lakehouse.state().tables.find((t) => t.name === "db.events")?.properties ?? {};
    expect(props["commit.retry.num-retries"]).toBeUndefined();
  });

  it("a catalog read that fails while proposing fails the proposal in the thread, never shows unset", async () => {
    const { incidentId, rootTs, report } = await proposed("rem-read").then(async (p) => ({
      ...p,
      report: (await h!.walks.get(p.incidentId))!.value,
    }));
    expect(report.proposals).toHaveLength(1);
    h!.lakehouse.faults.inject({
      service: "catalog",
      method: "GET",
      path: "^/v1/.*/tables/events$",
      kind: "status",
      status: 500,
      times: 50,
    });
    await h!.remediation.proposeStep(incidentId, "raise-commit-retries");
    await until(
      () => /could not be proposed: the catalog could not be read/.test(threadText(rootTs)),
      "the failure note",
    );
    const record = (await h!.walks.get(incidentId))!.value;
    expect(record.proposals).toHaveLength(1);
    expect(threadText(rootTs)).not.toMatch(/\(unset\)/);
  });

  it("a 500 from the catalog is reloaded, reported as not applied, and Apply works again", async () => {
    const { incidentId, rootTs, value } = await proposed("rem-500");
    h!.lakehouse.faults.inject({
      service: "catalog",
      method: "POST",
      path: "^/v1/.*/tables/events$",
      kind: "status",
      status: 500,
      times: 1,
    });
    await h!.remediation.submitApproval(value, ALICE, "go", false);
    await until(
      () => /reload shows .* unchanged; it was not retried/.test(threadText(rootTs)),
      "the 500 note",
    );
    expect(await phaseOf(incidentId)).toBe("failed");
    await h!.remediation.submitApproval(value, ALICE, "try again", false);
    await until(async () => (await phaseOf(incidentId)) === "applied", "applied on the second try");
    const props = h!.lakehouse.state().tables.find((t) => t.name === "db.events")?.properties ?? {};
    expect(props["commit.retry.num-retries"]).toBe("10");
  });

  it("a catalog that hangs on the commit is timed out, reloaded and reported plainly", async () => {
    const { incidentId, rootTs, value } = await proposed("rem-hang", { catalogTimeoutMs: 700 });
    h!.lakehouse.faults.inject({
      service: "catalog",
      method: "POST",
      path: "^/v1/.*/tables/events$",
      kind: "hang",
      times: 1,
    });
    await h!.remediation.submitApproval(value, ALICE, "go", false);
    await until(() => /was not applied/.test(threadText(rootTs)), "the hang note");
    expect(await phaseOf(incidentId)).toBe("failed");
    expect(threadText(rootTs)).toMatch(/not retried|Not known whether/);
  });

  it("offers Revert and the next step when the change does not help, and both work", async () => {
    const scenario = loadScenario("competing-appends");
    const stuck = {
      ...scenario,
      writers: scenario.writers.map((w) =>
        w.committer.kind === "flink" ? { ...w, recoversWhen: { when: "never" as const } } : w,
      ),
    };
    const { incidentId, rootTs, value } = await proposed("rem-ineffective", {
      scenario: stuck,
      checks: 2,
      intervalMs: 100,
    });
    await h!.remediation.submitApproval(value, ALICE, "go", false);
    await until(async () => (await phaseOf(incidentId)) === "applied", "applied");
    h!.lakehouse.advance(10 * 60_000);
    const verification = await until(
      () => h!.standIn.thread(CHANNEL, rootTs).find((m) => JSON.stringify(m.blocks).includes("No recovery:")),
      "the ineffective verification",
    );
    const blocks = JSON.stringify(verification.blocks);
    expect(blocks).toContain("playbook_revert");
    expect(blocks).toContain("playbook_next");
    expect(blocks).toContain("Commit less often");

    await h!.remediation.press("revert", value, ALICE);
    await until(
      () =>
        !(
          "commit.retry.num-retries" in
          (h!.lakehouse.state().tables.find((t) => t.name === "db.events")?.properties ?? {})
        ),
      "the revert",
    );
    await h!.remediation.press("next", { ...value, stepId: "commit-less-often" }, ALICE);
    const record = await until(async () => {
      const r = (await h!.walks.get(incidentId))?.value;
      return r?.walk.current?.stepId === "commit-less-often" ? r : undefined;
    }, "the next proposal");
    expect(record.walk.current?.phase).toBe("proposed");
    await until(
      () =>
        /Commit less often/.test(threadText(rootTs)) &&
        /execution\.checkpointing\.interval/.test(threadText(rootTs)),
      "next proposal posted",
    );
    const actions = (await h!.audit.list(h!.table)).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(["asked to revert", "reverted", "verified: not yet"]));
  });
});
