import { afterEach, describe, expect, it } from "vitest";
import { storyOf } from "../../../src/core/story/story.js";
import {
  ALICE,
  CAROL,
  CHANNEL,
  MALLORY,
  type ServiceHarness,
  startServiceHarness,
  until,
} from "./harness.js";

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

// The proposal in the thread, not the card's copy of its button (the root message).
const proposalOf = (harness: ServiceHarness, rootTs: string) =>
  harness.standIn
    .thread(CHANNEL, rootTs)
    .find((m) => m.ts !== rootTs && JSON.stringify(m.blocks).includes("playbook_apply"));

describe("remediation service against the simulated lakehouse", () => {
  it("proposes the diagnosis's step once, with the dry run, the buttons and the card waiting for approval", async () => {
    h = await startServiceHarness("rem-propose");
    const { incidentId, rootTs, report } = await h.openIncident();
    expect(report.nextStep?.id).toBe("raise-commit-retries");
    const proposal = await until(() => proposalOf(h!, rootTs), "the proposal");
    const blocks = JSON.stringify(proposal.blocks);
    expect(blocks).toContain("commit.retry.num-retries: unset (default 4) → 10");
    for (const id of ["playbook_apply", "playbook_done", "playbook_skip", "playbook_stop"])
      expect(blocks).toContain(id);
    // A retried diagnosis job proposes nothing new.
    await h.remediation.proposeFromReport(incidentId, 1, report);
    expect(
      h.standIn
        .thread(CHANNEL, rootTs)
        .filter((m) => m.ts !== rootTs && JSON.stringify(m.blocks).includes("playbook_apply")),
    ).toHaveLength(1);
    const incident = await h.store.require(incidentId);
    expect(incident.state).toBe("awaiting-approval");
    // The card reads the saved walk: its story waits for approval of the proposed step.
    const waiting = storyOf({ incident, walk: (await h.walks.get(incidentId))!.value });
    expect(waiting.step?.state).toBe("awaiting-approval");
    expect(h.cards.length).toBeGreaterThan(0);
    const history = await h.audit.list("db.events");
    expect(history.map((r) => r.action)).toContain("proposed");
  });

  it("refuses and audits an unauthorised approval, applies nothing, then applies one double submission once", async () => {
    h = await startServiceHarness("rem-approve");
    const { incidentId, value } = await h.openProposal();

    // Apply: the form's placeholder becomes the refusal (no ephemeral on top); the submission of
    // a form opened earlier is refused with an ephemeral. Both are audited.
    await h.remediation.openApply(value, MALLORY, await h.applyForm("trigger-1"));
    const form = h.standIn.views.opened[0] as { callback_id: string; submit?: unknown; blocks: unknown[] };
    expect(form.callback_id).toBe("playbook_apply_refused");
    expect(form.submit).toBeUndefined();
    expect(JSON.stringify(form.blocks)).toMatch(/not an approver for db\.events/);
    expect(h.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === MALLORY)).toHaveLength(0);
    await h.remediation.submitApproval(value, MALLORY, "let me", false);
    const refusal = await until(
      () => h!.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === MALLORY),
      "the ephemeral refusal",
    );
    expect(refusal.text).toMatch(/not an approver/);
    const refused = (await h.audit.list("db.events")).filter((r) => r.actor === MALLORY);
    expect(refused.length).toBe(2);
    expect(refused.every((r) => r.outcome === "refused")).toBe(true);

    // CAROL approves through the on-call user group; the form is submitted twice.
    await h.remediation.openApply(value, CAROL, await h.applyForm("trigger-2"));
    expect(h.standIn.views.opened).toHaveLength(2);
    expect((h.standIn.views.opened[1] as { callback_id: string }).callback_id).toBe("playbook_apply_modal");
    await Promise.all([
      h.remediation.submitApproval(value, CAROL, "retries are at the default", false),
      h.remediation.submitApproval(value, CAROL, "retries are at the default", false),
    ]);
    await until(
      async () => (await h!.walks.get(incidentId))?.value.walk.current?.phase === "applied",
      "applied",
    );
    expect(h.catalogCommits()).toBe(1);
    const props = h.lakehouse.state().tables.find((t) => t.name === "db.events")?.properties ?? {};
    expect(props["commit.retry.num-retries"]).toBe("10");
    const record = (await h.walks.get(incidentId))!.value;
    expect(record.walk.current?.previous).toEqual({
      "commit.retry.num-retries": null,
      "commit.retry.min-wait-ms": null,
    });

    // A second Apply while it is verifying is refused with when verification ends.
    await h.remediation.submitApproval(value, ALICE, "again", false);
    const busy = await until(
      () => h!.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === ALICE),
      "the busy refusal",
    );
    expect(busy.text).toMatch(/verification runs until \d\d:\d\d UTC/);
    expect(h.catalogCommits()).toBe(1);
  });

  it("tells a refusal as an ephemeral when the form it was meant for is gone, and audits it", async () => {
    h = await startServiceHarness("rem-form-gone");
    const { value } = await h.openProposal();
    // The person closed the placeholder before the worker got to it (or it never opened).
    await h.remediation.openApply(value, MALLORY, "iceberg-apply-closed-by-the-person");
    const refusal = await until(
      () => h!.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === MALLORY),
      "the ephemeral refusal",
    );
    expect(refusal.text).toMatch(/not an approver for db\.events/);
    const refused = (await h.audit.list("db.events")).filter((r) => r.actor === MALLORY);
    expect(refused.map((r) => r.outcome)).toEqual(["refused"]);
    expect(h.standIn.views.opened).toHaveLength(0);
  });

  it("follows up until the writer commits again, edits one verification message and resolves", async () => {
    h = await startServiceHarness("rem-recover", { checks: 6, intervalMs: 250 });
    const { incidentId, rootTs, value } = await h.openProposal();
    await h.remediation.submitApproval(value, ALICE, "default retries", false);
    await until(() => h!.catalogCommits() === 1, "the catalog commit");
    // Simulated time moves once the change is recorded, so the writer's next snapshot comes after it.
    await until(
      async () => (await h!.walks.get(incidentId))?.value.walk.current?.phase === "applied",
      "applied",
    );
    h.lakehouse.advance(6 * 60_000);
    const incident = await until(async () => {
      const i = await h!.store.get(incidentId);
      return i?.state === "resolved" ? i : undefined;
    }, "the incident to resolve");
    const story = storyOf({ incident, walk: (await h.walks.get(incidentId))!.value });
    expect(story.recovery?.stepId).toBe("raise-commit-retries");
    await h.delivered();
    const verification = h.standIn
      .thread(CHANNEL, rootTs)
      .filter((m) => /Verifying|Recovered/.test(`${m.text}${JSON.stringify(m.blocks)}`));
    expect(verification).toHaveLength(1);
    expect(JSON.stringify(verification[0]!.blocks)).toContain("Recovered");
    const actions = (await h.audit.list("db.events")).map((r) => r.action);
    expect(actions).toEqual(
      expect.arrayContaining(["proposed", "approved", "applied", "verified: recovered"]),
    );
  });

  it("a Stop pressed while the apply job waits in the queue wins: nothing is applied", async () => {
    h = await startServiceHarness("rem-stop", { worker: false });
    const { incidentId, rootTs, value } = await h.openProposal();
    await h.remediation.submitApproval(value, ALICE, "go", false);
    const [job] = await h.queue.queue.getWaiting();
    expect(job?.data.kind).toBe("apply");
    await h.remediation.press("stop", value, ALICE);
    await h.remediation.runJob(job!.data);
    expect(h.catalogCommits()).toBe(0);
    const incident = await h.store.require(incidentId);
    expect(incident.state).toBe("stopped");
    expect(await h.store.openIncidentFor("db.events")).toBeUndefined();
    await until(
      () => /playbook for `db\.events` was stopped/.test(JSON.stringify(h!.standIn.thread(CHANNEL, rootTs))),
      "the stop note",
    );
  });
});
