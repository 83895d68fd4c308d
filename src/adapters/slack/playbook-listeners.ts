// The playbook's buttons and the apply modal. A click or a submission is only recorded here (a
// queued job; a worker decides and answers); when it cannot be recorded the person is told at
// once. Apply is the exception in part: the form must be opened with the click's trigger_id,
// which expires in 3 s, so the checks before opening it and views.open stay here.

import type { App, BlockAction, ButtonAction, RespondFn } from "@slack/bolt";
import { asCodedError } from "../../errors.js";
import type { LogLike } from "../../services/incident/deps.js";
import type { ButtonKind, Remediation } from "../../services/remediation/remediation.js";
import { NOT_RECORDED_TEXT, type Recorder } from "./record.js";
import { ACTION_IDS, APPLY_MODAL, decodeActionValue } from "./render/action-value.js";

const BUTTONS: Array<[string, ButtonKind]> = [
  [ACTION_IDS.done, "done"],
  [ACTION_IDS.skip, "skip"],
  [ACTION_IDS.stop, "stop"],
  [ACTION_IDS.revert, "revert"],
  [ACTION_IDS.next, "next"],
];

/** Slack's identity of one click: who, which button, when (the same ids the replay guard uses). */
function clickId(user: string, action: ButtonAction): string {
  return `${user}|${action.action_id}@${action.block_id}@${action.action_ts}`;
}

/** Through the response_url: needs no Redis, shown only to the person who clicked. */
async function tellNotRecorded(respond: RespondFn, log: LogLike): Promise<void> {
  await respond({ response_type: "ephemeral", replace_original: false, text: NOT_RECORDED_TEXT }).catch(
    (error: unknown) => log.warn({ err: asCodedError(error).message }, "response_url reply failed"),
  );
}

export function registerPlaybookListeners(
  app: App,
  remediation: Remediation,
  log: LogLike,
  recorder: Recorder,
): void {
  const failed = (what: string) => (error: unknown) =>
    log.error({ err: asCodedError(error).message, what }, "playbook action failed");

  app.action<BlockAction<ButtonAction>>(ACTION_IDS.apply, async ({ ack, body, action, respond }) => {
    await ack();
    // Opening the form reads the walk; without Redis there is nothing to open it from.
    if (!recorder.ready()) {
      log.warn({ what: "apply" }, "redis unavailable, apply form not opened");
      await tellNotRecorded(respond, log);
      return;
    }
    try {
      await remediation.openApply(decodeActionValue(action.value), body.user.id, body.trigger_id);
    } catch (error) {
      failed("apply")(error);
    }
  });

  for (const [actionId, kind] of BUTTONS) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, respond }) => {
      await ack();
      let value: ReturnType<typeof decodeActionValue>;
      try {
        value = decodeActionValue(action.value);
      } catch (error) {
        failed(kind)(error);
        return;
      }
      const recorded = await recorder.record(kind, () =>
        remediation.recordClick(kind, value, body.user.id, clickId(body.user.id, action)),
      );
      if (!recorded) await tellNotRecorded(respond, log);
    });
  }

  app.view(APPLY_MODAL.callbackId, async ({ ack, body, view }) => {
    let value: ReturnType<typeof decodeActionValue>;
    try {
      value = decodeActionValue(view.private_metadata);
    } catch (error) {
      failed("approval")(error);
      await ack();
      return;
    }
    const values = view.state.values;
    const reason = values[APPLY_MODAL.reasonBlockId]?.[APPLY_MODAL.reasonActionId]?.value ?? undefined;
    const confirmed = (
      values[APPLY_MODAL.confirmBlockId]?.[APPLY_MODAL.confirmActionId]?.selected_options ?? []
    ).some((o) => o.value === APPLY_MODAL.confirmValue);
    const recorded = await recorder.record("approval", () =>
      remediation.recordApproval(
        value,
        body.user.id,
        reason ?? undefined,
        confirmed,
        `${view.id}|${view.hash}`,
      ),
    );
    // Recorded: the form closes and the outcome arrives in the thread. Not recorded: the form
    // stays open with the reason under its first field, so the person can simply submit again.
    if (recorded) await ack();
    else await ack({ response_action: "errors", errors: { [APPLY_MODAL.reasonBlockId]: NOT_RECORDED_TEXT } });
  });
}
