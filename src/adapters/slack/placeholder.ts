// Modals behind a click. Slack lets a click's trigger open a view for 3 s only, and what the view
// shows needs reads (the walk, the approver groups, a stored report) that must not run in the
// receiver. So the receiver opens a placeholder at once, named by an external id, and queues the
// work; a worker then updates that view by the same id into the real one.

import type { ModalView } from "./render/block-kit.js";
import { modal, section } from "./render/blocks.js";
import type { SlackClient } from "./web-client.js";

/** Callback id of a placeholder: it has no submit button, so nothing is ever submitted from it. */
const PLACEHOLDER_CALLBACK_ID = "placeholder";

/** The external id of the modal one click opens (a trigger id is unique per click). */
export function placeholderId(kind: "apply" | "evidence", triggerId: string): string {
  return `iceberg-${kind}-${triggerId}`.slice(0, 255);
}

export function renderPlaceholder(externalId: string, title: string, text: string): ModalView {
  return modal(title, [section(`:hourglass_flowing_sand: ${text}`)], {
    callback_id: PLACEHOLDER_CALLBACK_ID,
    external_id: externalId,
  });
}

/** A modal that only says something (what became of the click), with nothing to submit. */
export function renderModalNote(title: string, text: string): ModalView {
  return modal(title, [section(text)], { callback_id: PLACEHOLDER_CALLBACK_ID });
}

/** How many times a view not (yet) opened is looked for again, POLL_MS apart. */
const POLLS = 50;
const POLL_MS = 100;

function isNotFound(error: unknown): boolean {
  const e = error as { code?: string; data?: { error?: string } };
  return e.code === "slack_webapi_platform_error" && e.data?.error === "not_found";
}

/**
 * Replaces the placeholder with `view`. The worker may get there before the receiver's views.open
 * has landed, so "not_found" is asked again for a while (the trigger's 3 s and then some; counted
 * in polls, not read from a clock). False when the view never turned up (its opening failed, or the
 * person closed it) or Slack refused the update: the caller says so some other way.
 */
export async function fillPlaceholder(
  client: Pick<SlackClient, "views">,
  externalId: string,
  view: ModalView,
): Promise<boolean> {
  for (let poll = 0; ; poll++) {
    try {
      await client.views.update({ external_id: externalId, view: { ...view, external_id: externalId } });
      return true;
    } catch (error) {
      if (!isNotFound(error) || poll >= POLLS) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
