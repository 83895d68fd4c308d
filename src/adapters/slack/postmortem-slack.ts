// The postmortem in Slack: a canvas (canvases.create, markdown) where the workspace allows one;
// where it does not (a free team, canvases turned off, a token without the scope) the same markdown
// as a file shared in the thread. The pictures are the commit timelines already in the thread,
// embedded by their permalinks. Then one note in the thread: the summary, the timeline with Slack
// date tokens, and where the full text is.

import type { Postmortem, PostmortemEvent } from "../../core/history/postmortem.js";
import { stepWords } from "../../core/words/labels.js";
import { postmortemSummary, renderPostmortemMarkdown } from "../render/postmortem-markdown.js";
import { oneLine } from "../render/text-safety.js";
import { slackWhen } from "../render/times.js";
import type { SlackMessage } from "./render/block-kit.js";
import { context, section } from "./render/blocks.js";
import { escapeCode, escapeMrkdwn, mention } from "./render/limits.js";
import { findFileInThread, type ThreadTarget, uploadToThread } from "./upload.js";
import type { SlackClient } from "./web-client.js";

/** Refusals that mean "no canvases here": the markdown file is shared instead. */
const CANVAS_REFUSALS = new Set([
  "not_allowed",
  "free_team_not_allowed",
  "canvas_disabled_user_team",
  "canvas_creation_failed",
  "team_tier_cannot_create_canvases",
  "missing_scope",
  "not_allowed_token_type",
  "unknown_method",
]);

export type PostmortemPlace = { kind: "canvas"; id: string } | { kind: "file"; id: string; name: string };

function postmortemFileName(pm: Postmortem): string {
  return `${pm.table}-postmortem-${pm.incidentId}.md`.replace(/[^A-Za-z0-9._-]/g, "_");
}

function postmortemTitle(pm: Pick<Postmortem, "table" | "incidentId">): string {
  return `Postmortem: ${pm.table} (${pm.incidentId})`;
}

/**
 * A canvas or file an earlier try of this postmortem may have made: the canvas by its title among
 * the channel's canvases, the file by its name in the thread.
 */
async function findPublished(
  client: Pick<SlackClient, "files" | "conversations">,
  target: ThreadTarget,
  pm: Postmortem,
): Promise<PostmortemPlace | undefined> {
  const title = postmortemTitle(pm);
  const listed = await client.files.list({ channel: target.channel, types: "canvas", count: 200 });
  const canvas = (listed.files ?? []).find((f) => f.title === title && f.id);
  if (canvas?.id) return { kind: "canvas", id: canvas.id };
  const name = postmortemFileName(pm);
  const file = await findFileInThread(client, target, name);
  return file ? { kind: "file", id: file, name } : undefined;
}

/** The document's markdown, its pictures embedded by the permalinks of the files shared for them. */
async function postmortemMarkdown(
  client: Pick<SlackClient, "files">,
  pm: Postmortem,
  fileIds: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  const permalinks = new Map<string, string>();
  for (const picture of pm.pictures) {
    const id = picture.ref ? fileIds[picture.ref] : undefined;
    if (!id || id === "failed") continue;
    const info = await client.files.info({ file: id }).catch(() => undefined);
    const link = (info?.file as { permalink?: string } | undefined)?.permalink;
    if (link) permalinks.set(picture.name, link);
  }
  return renderPostmortemMarkdown(pm, { pictureUrl: (p) => permalinks.get(p.name) });
}

/** Replaces a posted canvas's content with a newer version of the postmortem (canvases.edit). */
export async function editPostmortem(
  client: Pick<SlackClient, "canvases" | "files">,
  canvasId: string,
  pm: Postmortem,
  fileIds: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const markdown = await postmortemMarkdown(client, pm, fileIds);
  await client.canvases.edit({
    canvas_id: canvasId,
    changes: [{ operation: "replace", document_content: { type: "markdown", markdown } }],
  });
}

/**
 * Publishes the postmortem document: a canvas, or the markdown file in the thread when the
 * workspace refuses canvases. `fileIds` maps a picture's ref to the id of the file shared for it.
 * `again`: an earlier try may have reached Slack, so what it made is looked for first.
 */
export async function publishPostmortem(
  client: Pick<SlackClient, "canvases" | "files" | "conversations">,
  target: ThreadTarget,
  pm: Postmortem,
  fileIds: Readonly<Record<string, string | undefined>>,
  options: { again?: boolean } = {},
): Promise<PostmortemPlace> {
  if (options.again) {
    const found = await findPublished(client, target, pm);
    if (found) return found;
  }
  const markdown = await postmortemMarkdown(client, pm, fileIds);
  const title = postmortemTitle(pm);
  try {
    const made = await client.canvases.create({
      title,
      document_content: { type: "markdown", markdown },
      channel_id: target.channel,
    });
    if (made.canvas_id) return { kind: "canvas", id: made.canvas_id };
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    if (!code || !CANVAS_REFUSALS.has(code)) throw error;
  }
  const name = postmortemFileName(pm);
  const bytes = new TextEncoder().encode(markdown);
  const { fileId } = await uploadToThread(client, target, {
    name,
    title,
    bytes,
    type: "text/markdown; charset=utf-8",
  });
  return { kind: "file", id: fileId, name };
}

function eventLine(e: PostmortemEvent): string {
  const when = slackWhen(e.atMs);
  switch (e.kind) {
    case "last-good-commit":
      return `${when} last good commit of the writer`;
    case "first-failure":
      return `${when} first failure of the writer`;
    case "alert-fired":
      return `${when} alert fired`;
    case "claimed":
      return `${when} ${mention(e.by)} took it on`;
    case "remark":
      return `${when} ${mention(e.by)}: ${escapeMrkdwn(oneLine(e.text, 200))}`;
    case "item-done":
      return `${when} marked done by ${mention(e.by)}`;
    case "diagnosis":
      return `${when} first diagnosis`;
    case "proposal":
      return `${when} proposed *${stepWords(e.stepId)}*`;
    case "approval":
      return `${when} approved by ${mention(e.by)}`;
    case "skipped":
      return `${when} skipped${e.by ? ` by ${mention(e.by)}` : ""}`;
    case "change":
      return e.byHand
        ? `${when} change made by hand${e.by ? `, marked by ${mention(e.by)}` : ""}`
        : `${when} change applied by the bot`;
    case "did-not-help":
      return `${when} no recovery after *${stepWords(e.stepId)}*`;
    case "recovery":
      return e.flowing
        ? `${when} the writer's next commit (it was committing all along)`
        : `${when} the writer's commits resumed`;
  }
}

/** The thread note: the summary, the timeline (date tokens) and where the full postmortem is. */
export function renderPostmortemNote(pm: Postmortem, place: PostmortemPlace | undefined): SlackMessage {
  const summary = postmortemSummary(pm, (text) => `\`${escapeCode(text)}\``);
  const where =
    place?.kind === "canvas"
      ? "The full postmortem draft is in the canvas *Postmortem* for this incident."
      : place?.kind === "file"
        ? `The full postmortem draft is the file \`${escapeMrkdwn(place.name)}\` in this thread.`
        : "The full postmortem draft could not be shared; `iceberg-bot postmortem` writes it.";
  return {
    text: `Postmortem draft for ${pm.table}`,
    blocks: [
      section(`:memo: *Postmortem draft* for \`${escapeCode(pm.table)}\`\n${summary}`),
      section(pm.timeline.map(eventLine).join("\n")),
      context(where),
    ],
  };
}
