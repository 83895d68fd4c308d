// The playbook's buttons and the apply modal. Each listener acks at once (Slack allows 3 s), reads
// the button value, and hands the click to the remediation service, which decides and answers.

import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import { asCodedError } from "../../errors.js";
import type { LogLike } from "../../services/incident-deps.js";
import type { ButtonKind, Remediation } from "../../services/remediation.js";
import { ACTION_IDS, APPLY_MODAL, decodeActionValue } from "./render/action-value.js";

const BUTTONS: Array<[string, ButtonKind]> = [
  [ACTION_IDS.done, "done"],
  [ACTION_IDS.skip, "skip"],
  [ACTION_IDS.stop, "stop"],
  [ACTION_IDS.revert, "revert"],
  [ACTION_IDS.next, "next"],
];

export function registerPlaybookListeners(app: App, remediation: Remediation, log: LogLike): void {
  const failed = (what: string) => (error: unknown) =>
    log.error({ err: asCodedError(error).message, what }, "playbook action failed");

  app.action<BlockAction<ButtonAction>>(ACTION_IDS.apply, async ({ ack, body, action }) => {
    await ack();
    try {
      await remediation.openApply(decodeActionValue(action.value), body.user.id, body.trigger_id);
    } catch (error) {
      failed("apply")(error);
    }
  });

  for (const [actionId, kind] of BUTTONS) {
    app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action }) => {
      await ack();
      try {
        await remediation.press(kind, decodeActionValue(action.value), body.user.id);
      } catch (error) {
        failed(kind)(error);
      }
    });
  }

  app.view(APPLY_MODAL.callbackId, async ({ ack, body, view }) => {
    // Closing the modal at once; the outcome arrives in the thread.
    await ack();
    try {
      const values = view.state.values;
      const reason = values[APPLY_MODAL.reasonBlockId]?.[APPLY_MODAL.reasonActionId]?.value ?? undefined;
      const confirmed = (
        values[APPLY_MODAL.confirmBlockId]?.[APPLY_MODAL.confirmActionId]?.selected_options ?? []
      ).some((o) => o.value === APPLY_MODAL.confirmValue);
      await remediation.submitApproval(
        decodeActionValue(view.private_metadata),
        body.user.id,
        reason ?? undefined,
        confirmed,
      );
    } catch (error) {
      failed("approval")(error);
    }
  });
}
