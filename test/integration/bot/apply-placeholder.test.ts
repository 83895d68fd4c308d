// Apply through the real receiver (signed requests, Bolt's own verification): the click is
// acknowledged and a placeholder form opened at once with its short-lived trigger, whatever the
// approver directory takes; a worker does the checks and turns the placeholder into the form, or
// into the refusal (audited) for someone who may not approve.

import { afterEach, describe, expect, it } from "vitest";
import { type Bot, startBot } from "../../../src/main.js";
import { buttonClickBody, type FoundButton, findButton } from "../../../src/sim/slack/person.js";
import type { StoredMessage } from "../../../src/sim/slack/types.js";
import { postSigned } from "../../support/slack-signing.js";
import { CHANNEL, eventually, type Harness, startWithProposal } from "./harness.js";

const ALICE = "U0ALICE";
const MALLORY = "U0MALLORY";
const FORM = "application/x-www-form-urlencoded";
const BOT_CONFIG = `
defaults:
  approvers: [S0ONCALL]
tables:
  db.events:
    flinkJobName: events-ingest
`;

interface View {
  id?: string;
  callback_id?: string;
  submit?: unknown;
  blocks?: unknown[];
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function applyClick(harness: Harness, user: string, actionTs: string, rootTs: string): string {
  const apply = findButton(harness.standIn, CHANNEL, rootTs, "playbook_apply")!;
  return buttonClickBody({ user, channel: CHANNEL, standIn: harness.standIn }, apply, {
    triggerId: `${actionTs}.42.apply`,
    actionTs,
  });
}

async function proposed(label: string): Promise<{ harness: Harness; rootTs: string }> {
  const { harness, rootTs } = await startWithProposal(label, {
    botConfig: BOT_CONFIG,
    standIn: { usergroups: { S0ONCALL: [ALICE] } },
  });
  h = harness;
  // A fresh bot: nothing of the approver groups is cached, so the checks must ask Slack.
  const first = harness.bots.splice(0, 1)[0]!;
  await first.stop();
  const fresh: Bot = await startBot(harness.config, {
    namespace: harness.scope.namespace,
    queuePrefix: harness.scope.queuePrefix,
    queueNames: harness.scope.queueNames,
    port: 0,
    backoffMs: 100,
    lockDurationMs: 2000,
    stalledIntervalMs: 1000,
    remediation: { followUpIntervalMs: 60_000, diagnosisWaitMs: 5000 },
    now: () => harness.lakehouse!.clock.now(),
  });
  harness.bots.push(fresh);
  return { harness, rootTs };
}

describe("Apply opens its form at once and a worker fills it in", () => {
  it("acks and opens the placeholder while the approver directory is slow; the worker fills in the form", async () => {
    const { harness, rootTs } = await proposed("apply-slow-directory");
    // The directory (Slack's usergroups.users.list) answers only when the test opens this gate, so
    // "before the directory answered" is an order of events, not a race against a delay.
    let openGate = (): void => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    harness.standIn.inject({ method: "usergroups.users.list", kind: "late", releasedBy: gate });
    const answer = await postSigned(
      harness.url("/slack/events"),
      harness.secret,
      applyClick(harness, ALICE, "1764540000.500001", rootTs),
      FORM,
    );
    // Acknowledged without waiting for the directory (what keeps it inside Slack's 3 s).
    expect(answer.status).toBe(200);

    // The first view Slack sees is the placeholder, opened while the directory is still held.
    const first = (await eventually(() => harness.standIn.views.opened[0], "the placeholder")) as View;
    expect(first.callback_id).toBe("placeholder");
    expect(first.submit).toBeUndefined();
    const open = harness.standIn.calls.find((c) => c.method === "views.open");
    expect(open?.ok).toBe(true);

    // The worker's checks are waiting on the directory: asked, not answered, the view untouched.
    await eventually(
      () => harness.standIn.calls.some((c) => c.method === "usergroups.users.list" && c.fault === "late"),
      "the worker to ask the directory",
    );
    expect((harness.standIn.views.opened[0] as View).callback_id).toBe("placeholder");

    // Once the directory answers, the same view becomes the form.
    openGate();
    const form = (await eventually(() => {
      const view = harness.standIn.views.opened[0] as View;
      return view.callback_id === "playbook_apply_modal" ? view : undefined;
    }, "the form")) as View;
    expect(form.id).toBe(first.id);
    expect(form.submit).toBeDefined();
    expect(JSON.stringify(form.blocks)).toContain("apply_reason");
    expect(harness.standIn.views.opened).toHaveLength(1);
  });

  it("turns the placeholder into the refusal for someone who may not approve, and audits it", async () => {
    const { harness, rootTs } = await proposed("apply-refused");
    const answer = await postSigned(
      harness.url("/slack/events"),
      harness.secret,
      applyClick(harness, MALLORY, "1764540000.600001", rootTs),
      FORM,
    );
    expect(answer.status).toBe(200);
    const refusal = (await eventually(() => {
      const view = harness.standIn.views.opened[0] as View | undefined;
      return view?.callback_id === "playbook_apply_refused" ? view : undefined;
    }, "the refusal")) as View;
    expect(refusal.submit).toBeUndefined();
    expect(JSON.stringify(refusal.blocks)).toMatch(
      /not an approver for db\.events; ask <!subteam\^S0ONCALL>/,
    );
    const rows = await eventually(async () => {
      const all = await harness.bots[0]!.store.audit("db.events");
      const mine = all.filter((r) => r.actor === MALLORY);
      return mine.length > 0 ? mine : undefined;
    }, "the audit row");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ outcome: "refused" });
    // Shown in the form, not said twice.
    expect(harness.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === MALLORY)).toHaveLength(0);
  });

  it("offers the waiting decision on the root card too: its button opens the same form", async () => {
    const { harness, rootTs } = await proposed("apply-from-card");
    // The card is edited once the proposal is posted; its button carries the proposal's value.
    const card = await eventually(() => {
      const root = harness.standIn.thread(CHANNEL, rootTs)[0] as StoredMessage | undefined;
      const block = (
        root?.blocks as Array<{ type: string; block_id?: string; elements?: FoundButton["button"][] }>
      )?.find((b) => b.type === "actions" && b.block_id === "card_decision");
      return root && block ? { root, block } : undefined;
    }, "the card's decision button");
    const button = card.block.elements![0]!;
    expect(button).toMatchObject({ action_id: "playbook_apply", text: { text: "Review and apply" } });
    const proposal = await eventually(() => {
      const found = findButton(harness.standIn, CHANNEL, rootTs, "playbook_apply");
      return found && found.message.ts !== rootTs ? found : undefined;
    }, "the proposal");
    expect(button.value).toBe(proposal.button.value);
    expect(JSON.stringify(card.root.blocks)).toMatch(/\*Now:\* waiting for approval of/);

    const body = buttonClickBody(
      { user: ALICE, channel: CHANNEL, standIn: harness.standIn },
      { message: card.root, button, blockId: "card_decision" },
      { triggerId: "1764540000.700001.42.card", actionTs: "1764540000.700001" },
    );
    expect((await postSigned(harness.url("/slack/events"), harness.secret, body, FORM)).status).toBe(200);
    const form = (await eventually(() => {
      const view = harness.standIn.views.opened[0] as View | undefined;
      return view?.callback_id === "playbook_apply_modal" ? view : undefined;
    }, "the form")) as View;
    expect(JSON.stringify(form.blocks)).toContain("apply_reason");
  });
});
