// The playbook's buttons and the apply modal. A click or a submission is only recorded here (a
// queued job; a worker decides and answers); when it cannot be recorded the person is told at
// once. Apply also opens its form here, because only the click's trigger_id can open one and it
// expires in 3 s: a placeholder, opened once the click is recorded, which the worker fills in with
// the form or with why this person cannot approve this step now.

import type { BlockAction, ButtonAction } from "@slack/bolt";
import { asCodedError } from "../../errors.js";
import type { LogLike } from "../../services/incident/deps.js";
import type { ButtonKind, Remediation } from "../../services/remediation/remediation.js";
import type { ListenerRouter } from "./listener-router.js";
import { placeholderId, renderPlaceholder } from "./placeholder.js";
import { NOT_RECORDED_TEXT, type Recorder, tellNotRecorded } from "./record.js";
import { ACTION_IDS, APPLY_MODAL, decodeActionValue } from "./render/action-value.js";
import type { ModalView } from "./render/block-kit.js";

const BUTTONS: Array<[string, ButtonKind]> = [
  [ACTION_IDS.done, "done"],
  [ACTION_IDS.skip, "skip"],
  [ACTION_IDS.stop, "stop"],
  [ACTION_IDS.revert, "revert"],
  [ACTION_IDS.next, "next"],
  [ACTION_IDS.itemDone, "item-done"],
];

/** Slack's identity of one click: who, which button, when (the same ids the replay guard uses). */
function clickId(user: string, action: ButtonAction): string {
  return `${user}|${action.action_id}@${action.block_id}@${action.action_ts}`;
}

export function registerPlaybookListeners(
  router: ListenerRouter,
  remediation: Remediation,
  log: LogLike,
  recorder: Recorder,
  openPlaceholder: (triggerId: string, view: ModalView) => Promise<void>,
): void {
  const failed = (what: string) => (error: unknown) =>
    log.error({ err: asCodedError(error).message, what }, "playbook action failed");

  router.action<BlockAction<ButtonAction>>(ACTION_IDS.apply, async ({ ack, body, action, respond }) => {
    await ack();
    let value: ReturnType<typeof decodeActionValue>;
    try {
      value = decodeActionValue(action.value);
    } catch (error) {
      failed("apply")(error);
      return;
    }
    const viewId = placeholderId("apply", body.trigger_id);
    const recorded = await recorder.record("apply", () =>
      remediation.recordApplyClick(value, body.user.id, clickId(body.user.id, action), viewId),
    );
    // Not recorded: no form at all (nothing would ever fill it), the person is told instead.
    if (!recorded) {
      await tellNotRecorded(respond, log);
      return;
    }
    await openPlaceholder(
      body.trigger_id,
      renderPlaceholder(viewId, "Apply change", "Checking the step and who may approve it…"),
    ).catch(failed("apply form"));
  });

  for (const [actionId, action] of [
    [ACTION_IDS.autopilotHold, "hold"],
    [ACTION_IDS.autopilotNow, "apply-now"],
  ] as const) {
    router.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action: button, respond }) => {
      await ack();
      let value: ReturnType<typeof decodeActionValue>;
      try {
        value = decodeActionValue(button.value);
      } catch (error) {
        failed(action)(error);
        return;
      }
      const recorded = await recorder.record(action, () =>
        remediation.recordAutopilotClick(action, value, body.user.id, clickId(body.user.id, button)),
      );
      if (!recorded) await tellNotRecorded(respond, log);
    });
  }

  for (const [actionId, kind] of BUTTONS) {
    router.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, respond }) => {
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

  router.view(APPLY_MODAL.callbackId, async ({ ack, body, view }) => {
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
