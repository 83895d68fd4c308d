// Action ids and the compact JSON every playbook button carries, shared by the renderers and the
// listeners that receive the clicks, so both sides agree on one spelling.

import { z } from "zod";
import { STEP_IDS } from "../../../core/ids.js";
import { CodedError, ErrorCode } from "../../../errors.js";
import type { ActionValue } from "../../../services/view-models.js";
import type { Button } from "./block-kit.js";
import { button } from "./blocks.js";
import { LIMITS } from "./limits.js";

export const ACTION_IDS = {
  apply: "playbook_apply",
  done: "playbook_done",
  skip: "playbook_skip",
  stop: "playbook_stop",
  revert: "playbook_revert",
  next: "playbook_next",
  /** On the resolved card: what the report left open is done. */
  itemDone: "incident_item_done",
  /** On the card: "I'm on it", the person handling the incident. */
  claim: "incident_claim",
  /** On autopilot's announcement: hand the step back to people, or apply it before the hold-off ends. */
  autopilotHold: "autopilot_hold",
  autopilotNow: "autopilot_apply_now",
} as const;

export const APPLY_MODAL = {
  callbackId: "playbook_apply_modal",
  /** The form turned into a refusal: nothing to submit. */
  refusedCallbackId: "playbook_apply_refused",
  reasonBlockId: "apply_reason",
  reasonActionId: "reason",
  confirmBlockId: "apply_confirm",
  confirmActionId: "confirm",
  confirmValue: "correct-for-this-table",
} as const;

const ActionValueSchema = z.object({
  incidentId: z.string().min(1),
  stepId: z.enum(STEP_IDS),
  proposalId: z.string().min(1),
});

export function encodeActionValue(value: ActionValue): string {
  const encoded = JSON.stringify({
    incidentId: value.incidentId,
    stepId: value.stepId,
    proposalId: value.proposalId,
  });
  if (encoded.length > LIMITS.buttonValue) {
    throw new CodedError(
      ErrorCode.Internal,
      `Button value is ${encoded.length} characters; Slack allows 2000`,
      {
        hint: "Incident and proposal ids must be short; check how they are generated.",
      },
    );
  }
  return encoded;
}

/** A button carrying a playbook action's value (the card's, the proposal's, the follow-up's). */
export function actionButton(
  text: string,
  actionId: string,
  value: ActionValue,
  style?: "primary" | "danger",
): Button {
  return button(text, actionId, encodeActionValue(value), style);
}

/** Reads a button value or modal private_metadata back; throws usage_invalid when it is not ours. */
export function decodeActionValue(raw: string | undefined): ActionValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw ?? "");
  } catch {
    parsed = undefined;
  }
  const result = ActionValueSchema.safeParse(parsed);
  if (!result.success) {
    throw new CodedError(
      ErrorCode.UsageInvalid,
      "This button does not carry a playbook step the bot can read",
      {
        hint: "The message may come from an older version of the bot; run /iceberg status to find the current step.",
      },
    );
  }
  return result.data;
}
