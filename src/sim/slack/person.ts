// A person in the demo workspace: finds the playbook buttons in the Slack stand-in and sends the
// signed block_actions and view_submission requests Slack would send, into the bot's own Bolt
// receiver. The demo uses it to approve a step the way a real approver would.

import { signedHeaders } from "./signing.js";
import type { SlackStandIn, StoredMessage } from "./types.js";

export interface SlackPerson {
  botUrl: string;
  signingSecret: string;
  standIn: SlackStandIn;
  channel: string;
  user: string;
}

interface ButtonElement {
  type?: string;
  action_id?: string;
  value?: string;
  text?: { text?: string };
}

interface BlockWithElements {
  type?: string;
  block_id?: string;
  elements?: ButtonElement[];
}

let counter = 0;

/** The newest thread message carrying a button with this action id, and the button. */
export function findButton(
  standIn: SlackStandIn,
  channel: string,
  rootTs: string,
  actionId: string,
): { message: StoredMessage; button: ButtonElement; blockId: string } | undefined {
  const thread = standIn.thread(channel, rootTs);
  for (let i = thread.length - 1; i >= 0; i--) {
    const message = thread[i] as StoredMessage;
    for (const block of message.blocks as BlockWithElements[]) {
      const button = block.elements?.find((e) => e.action_id === actionId);
      if (block.type === "actions" && button) return { message, button, blockId: block.block_id ?? "" };
    }
  }
  return undefined;
}

/** POSTs a body signed the way Slack signs it, with the answer's body (an ack's ephemeral reply or modal errors). */
async function postSigned(
  url: string,
  secret: string,
  body: string,
  contentType: string,
): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: signedHeaders(secret, body, contentType),
    body,
  });
  return { status: response.status, body: await response.text() };
}

/** A form body from this person into the bot, as Slack posts interactions and commands. */
export function postForm(person: Pick<SlackPerson, "botUrl" | "signingSecret">, body: string) {
  return postSigned(person.botUrl, person.signingSecret, body, "application/x-www-form-urlencoded");
}

/** A trigger id as Slack hands one out with each click or command. */
export const newTriggerId = () => `${Date.now()}.${process.pid}.${++counter}`;

function form(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

function userOf(person: Pick<SlackPerson, "user">) {
  return {
    id: person.user,
    username: person.user.toLowerCase(),
    name: person.user.toLowerCase(),
    team_id: "T0DEMO",
  };
}

export type FoundButton = NonNullable<ReturnType<typeof findButton>>;

/** The form body of the block_actions request Slack sends when this person presses the button. */
export function buttonClickBody(
  person: Pick<SlackPerson, "user" | "channel" | "standIn">,
  found: FoundButton,
  ids: { triggerId: string; actionTs: string; value?: string },
): string {
  const actionId = found.button.action_id ?? "";
  return form({
    type: "block_actions",
    user: userOf(person),
    api_app_id: "A0DEMO",
    token: "legacy-verification-token",
    container: {
      type: "message",
      message_ts: found.message.ts,
      channel_id: person.channel,
      is_ephemeral: false,
    },
    trigger_id: ids.triggerId,
    team: { id: "T0DEMO", domain: "demo" },
    channel: { id: person.channel, name: "incidents" },
    message: {
      type: "message",
      ts: found.message.ts,
      text: found.message.text,
      blocks: found.message.blocks,
    },
    response_url: person.standIn.responseUrl(),
    actions: [
      {
        action_id: actionId,
        block_id: found.blockId,
        value: ids.value ?? found.button.value,
        type: "button",
        text: { type: "plain_text", text: found.button.text?.text ?? actionId },
        action_ts: ids.actionTs,
      },
    ],
  });
}

/** Presses a button of a thread message; returns the trigger id Slack would hand out. */
export async function pressButton(
  person: SlackPerson,
  rootTs: string,
  actionId: string,
  valueOverride?: string,
): Promise<string> {
  const found = findButton(person.standIn, person.channel, rootTs, actionId);
  if (!found) throw new Error(`no ${actionId} button in the thread`);
  const triggerId = newTriggerId();
  const body = buttonClickBody(person, found, {
    triggerId,
    actionTs: `${Date.now() / 1000}`,
    ...(valueOverride !== undefined ? { value: valueOverride } : {}),
  });
  const { status } = await postForm(person, body);
  if (status !== 200) throw new Error(`the bot answered ${status} to the ${actionId} click`);
  return triggerId;
}

export interface OpenedView {
  id?: string;
  callback_id?: string;
  private_metadata?: string;
  hash?: string;
  title?: unknown;
  blocks?: Array<{ block_id?: string }>;
}

/** The form body of the view_submission Slack sends when this person submits `view` with `values`. */
export function viewSubmissionBody(
  person: Pick<SlackPerson, "user">,
  view: object,
  values: unknown,
  triggerId: string,
): string {
  return form({
    type: "view_submission",
    team: { id: "T0DEMO", domain: "demo" },
    user: userOf(person),
    api_app_id: "A0DEMO",
    token: "legacy-verification-token",
    trigger_id: triggerId,
    view: { ...view, type: "modal", state: { values } },
  });
}

/** The form body of the view_submission Slack sends when this person submits the apply form. */
export function applySubmissionBody(
  person: Pick<SlackPerson, "user">,
  view: OpenedView,
  reason: string,
  options: { confirm?: boolean; triggerId: string },
): string {
  const values: Record<string, Record<string, unknown>> = {
    apply_reason: { reason: { type: "plain_text_input", value: reason } },
  };
  if (view.blocks?.some((b) => b.block_id === "apply_confirm")) {
    values.apply_confirm = {
      confirm: {
        type: "checkboxes",
        selected_options: options.confirm
          ? [{ value: "correct-for-this-table", text: { type: "plain_text", text: "ok" } }]
          : [],
      },
    };
  }
  return viewSubmissionBody(person, view, values, options.triggerId);
}

/** Fills in and submits the newest apply modal the bot opened. */
export async function submitApplyModal(
  person: SlackPerson,
  reason: string,
  confirm: boolean,
  openedBefore: number,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // The click opens a placeholder at once; the bot's worker turns it into the form (or a refusal).
  let view: OpenedView | undefined;
  for (;;) {
    view = person.standIn.views.opened
      .slice(openedBefore)
      .reverse()
      .find((v) => (v as OpenedView).callback_id === "playbook_apply_modal") as OpenedView | undefined;
    if (view) break;
    if (Date.now() > deadline) throw new Error("the bot did not open the apply form");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const body = applySubmissionBody(person, view, reason, { confirm, triggerId: newTriggerId() });
  const { status } = await postForm(person, body);
  if (status !== 200) throw new Error(`the bot answered ${status} to the form submission`);
}

/** Apply, then the form: the whole approval as one person gives it. */
export async function approveStep(person: SlackPerson, rootTs: string, reason: string, confirm = false) {
  const before = person.standIn.views.opened.length;
  await pressButton(person, rootTs, "playbook_apply");
  await submitApplyModal(person, reason, confirm, before);
}

/** The form body of a slash command (`/iceberg audit db.events`) this person types in the channel. */
export function slashCommandBody(
  person: Pick<SlackPerson, "user" | "channel" | "standIn">,
  command: string,
  text: string,
  triggerId: string,
): string {
  return new URLSearchParams({
    token: "legacy-verification-token",
    team_id: "T0DEMO",
    team_domain: "demo",
    channel_id: person.channel,
    channel_name: "incidents",
    user_id: person.user,
    user_name: person.user.toLowerCase(),
    command,
    text,
    api_app_id: "A0DEMO",
    response_url: person.standIn.responseUrl(),
    trigger_id: triggerId,
  }).toString();
}

/** Types a slash command in the channel; returns the trigger id. */
export async function sendSlashCommand(person: SlackPerson, command: string, text: string): Promise<string> {
  const triggerId = newTriggerId();
  const { status } = await postForm(person, slashCommandBody(person, command, text, triggerId));
  if (status !== 200) throw new Error(`the bot answered ${status} to ${command} ${text}`);
  return triggerId;
}
