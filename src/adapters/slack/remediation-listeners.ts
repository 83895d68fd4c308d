// The playbook's buttons and the apply modal. A click or a submission is only recorded here (a
// queued job; a worker decides and answers); when it cannot be recorded the person is told at
// once. Apply also opens its form here, because only the click's trigger_id can open one and it
// expires in 3 s: a placeholder, opened once the click is recorded, which the worker fills in with
// the form or with why this person cannot approve this step now.

import type { BlockAction, ButtonAction } from "@slack/bolt";
import { asCodedError } from "../../errors.js";
import type { LogLike } from "../../services/incident/deps.js";
import type { RemediationJob, RemediationScheduler } from "../../services/ports.js";
import type { ActionValue } from "../../services/view-models.js";
import type { ListenerRouter } from "./listener-router.js";
import { placeholderId, renderPlaceholder } from "./placeholder.js";
import { NOT_RECORDED_TEXT, type Recorder, tellNotRecorded } from "./record.js";
import { ACTION_IDS, APPLY_MODAL, decodeActionValue } from "./render/action-value.js";
import type { ModalView } from "./render/block-kit.js";

/** A click as every job records it: the proposal its button names, who, and Slack's id of it. */
type Click = ActionValue & { user: string; slackId: string };

const BUTTONS: Array<[string, Extract<RemediationJob, { kind: "click" }>["button"]]> = [
  [ACTION_IDS.done, "done"],
  [ACTION_IDS.skip, "skip"],
  [ACTION_IDS.stop, "stop"],
  [ACTION_IDS.revert, "revert"],
  [ACTION_IDS.next, "next"],
  [ACTION_IDS.itemDone, "item-done"],
];

/** Every button: its action id, its name in logs, and the job that records a click on it. */
const ACTIONS: Array<
  [actionId: string, what: string, job: (click: Click, triggerId: string) => RemediationJob]
> = [
  [
    ACTION_IDS.apply,
    "apply",
    (click, triggerId) => ({ kind: "apply-form", ...click, viewId: placeholderId("apply", triggerId) }),
  ],
  [ACTION_IDS.autopilotHold, "hold", (click) => ({ kind: "autopilot", action: "hold", ...click })],
  [ACTION_IDS.autopilotNow, "apply-now", (click) => ({ kind: "autopilot", action: "apply-now", ...click })],
  ...BUTTONS.map(([actionId, button]): (typeof ACTIONS)[number] => [
    actionId,
    button,
    (click) => ({ kind: "click", button, ...click }),
  ]),
];

/** Slack's identity of one click: who, which button, when (the same ids the replay guard uses). */
function clickId(user: string, action: ButtonAction): string {
  return `${user}|${action.action_id}@${action.block_id}@${action.action_ts}`;
}

export function registerRemediationListeners(
  router: ListenerRouter,
  /**
   * Where a click or a submission is recorded as a job: what it causes (reads, the walk's decision,
   * messages) happens in a worker. The job's `slackId` is Slack's id of the delivery, so a repeat
   * adds the same job once.
   */
  jobs: RemediationScheduler,
  log: LogLike,
  recorder: Recorder,
  openPlaceholder: (triggerId: string, view: ModalView) => Promise<void>,
): void {
  const failed = (what: string) => (error: unknown) =>
    log.error({ err: asCodedError(error).message, what }, "playbook action failed");

  for (const [actionId, what, job] of ACTIONS) {
    router.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, respond }) => {
      await ack();
      let value: ActionValue;
      try {
        value = decodeActionValue(action.value);
      } catch (error) {
        failed(what)(error);
        return;
      }
      const click = { ...value, user: body.user.id, slackId: clickId(body.user.id, action) };
      const recorded = await recorder.record(what, () => jobs.enqueue(job(click, body.trigger_id)));
      // Not recorded: no form at all for Apply (nothing would ever fill it), the person is told instead.
      if (!recorded) return tellNotRecorded(respond, log);
      if (actionId !== ACTION_IDS.apply) return;
      await openPlaceholder(
        body.trigger_id,
        renderPlaceholder(
          placeholderId("apply", body.trigger_id),
          "Apply change",
          "Checking the step and who may approve it…",
        ),
      ).catch(failed("apply form"));
    });
  }

  router.view(APPLY_MODAL.callbackId, async ({ ack, body, view }) => {
    let value: ActionValue;
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
      jobs.enqueue({
        kind: "approval",
        ...value,
        user: body.user.id,
        ...(reason ? { reason } : {}),
        confirmed,
        slackId: `${view.id}|${view.hash}`,
      }),
    );
    // Recorded: the form closes and the outcome arrives in the thread. Not recorded: the form
    // stays open with the reason under its first field, so the person can simply submit again.
    if (recorded) await ack();
    else await ack({ response_action: "errors", errors: { [APPLY_MODAL.reasonBlockId]: NOT_RECORDED_TEXT } });
  });
}
