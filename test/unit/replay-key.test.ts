import { describe, expect, it } from "vitest";
import { replayKey } from "../../src/adapters/http/replay-guard.js";

const click = (actionTs: string, user = "U1", actionId = "playbook_apply") => ({
  type: "block_actions",
  user: { id: user },
  trigger_id: `t-${Math.random()}`,
  actions: [{ action_id: actionId, block_id: "b1", action_ts: actionTs }],
});

describe("replayKey: Slack's own ids for one delivery", () => {
  it("keys events by event id, whatever else they carry", () => {
    expect(replayKey({ type: "event_callback", event_id: "Ev1", trigger_id: "x" })).toEqual({
      scope: "slack-event",
      key: "Ev1",
    });
  });

  it("keys clicks by user, action and action_ts, not by the trigger id Slack renews", () => {
    const a = replayKey(click("1.1"));
    expect(a).toEqual({ scope: "slack-action", key: "U1|playbook_apply@b1@1.1" });
    expect(replayKey(click("1.1"))).toEqual(a);
    expect(replayKey(click("1.2"))).not.toEqual(a);
    expect(replayKey(click("1.1", "U2"))).not.toEqual(a);
    expect(replayKey(click("1.1", "U1", "playbook_skip"))).not.toEqual(a);
    // Without action_ts a click cannot be told from a new one.
    expect(replayKey({ ...click("1.1"), actions: [{ action_id: "x" }] })).toBeUndefined();
  });

  it("keys submissions by view id and hash: a changed view is a new submission", () => {
    const submit = (hash: string) => ({ type: "view_submission", view: { id: "V1", hash } });
    expect(replayKey(submit("h1"))).toEqual({ scope: "slack-view", key: "V1|h1" });
    expect(replayKey(submit("h2"))).not.toEqual(replayKey(submit("h1")));
    expect(replayKey({ type: "view_submission", view: { id: "V1" } })).toBeUndefined();
  });

  it("keys slash commands and shortcuts by trigger id; leaves other bodies alone", () => {
    expect(replayKey({ command: "/iceberg", trigger_id: "T9" })).toEqual({
      scope: "slack-command",
      key: "T9",
    });
    expect(replayKey({ type: "shortcut", trigger_id: "T8" })).toEqual({ scope: "slack-command", key: "T8" });
    expect(replayKey({ type: "block_suggestion", trigger_id: "T7" })).toBeUndefined();
    expect(replayKey("payload")).toBeUndefined();
  });
});
