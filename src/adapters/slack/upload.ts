// Shares a file in a Slack thread (a commit timeline's PNG, a postmortem's markdown) with the
// current upload flow: files.getUploadURLExternal for the name and exact length, the bytes POSTed
// to the URL it returns, then files.completeUploadExternal with the channel and thread. Needs the
// files:write scope.

import type { TimelineChart } from "../../core/chart/timeline.js";
import { timelineSpec } from "../../core/chart/timeline-spec.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { TimelineFile } from "../../services/ports.js";
import { renderPng } from "../chart/render-png.js";
import { findInPages } from "./find-in-pages.js";
import type { SlackClient } from "./web-client.js";

/** Where a picture goes: an incident's thread. */
export interface ThreadTarget {
  channel: string;
  threadTs: string;
}

/** Draws a commit timeline and shares it in a thread (the outbox's poster uses it). */
export interface TimelinePoster {
  /**
   * Uploads the chart into the thread. `again`: an earlier try of this file may have reached
   * Slack, so the thread is searched for it by name first.
   */
  post(
    target: ThreadTarget,
    chart: TimelineChart,
    file: TimelineFile,
    options?: { again?: boolean },
  ): Promise<{ fileId: string }>;
}

/** A file to share: a picture (with its screen-reader text) or a document. */
export interface ThreadFile {
  name: string;
  title: string;
  altText?: string;
  bytes: Uint8Array;
  /** The bytes' content type. */
  type: string;
}

export async function uploadToThread(
  client: Pick<SlackClient, "files">,
  target: ThreadTarget,
  file: ThreadFile,
): Promise<{ fileId: string }> {
  const ticket = await client.files.getUploadURLExternal({
    filename: file.name,
    length: file.bytes.byteLength,
    ...(file.altText === undefined ? {} : { alt_text: file.altText }),
  });
  if (!ticket.upload_url || !ticket.file_id) {
    throw new CodedError(ErrorCode.SlackApi, "Slack files.getUploadURLExternal returned no upload URL");
  }
  // The upload URL is not a Web API method: WebClient does not send it.
  const response = await fetch(ticket.upload_url, {
    method: "POST",
    headers: { "content-type": file.type },
    body: file.bytes,
    signal: AbortSignal.timeout(20_000),
  });
  if (!response.ok) {
    throw new CodedError(ErrorCode.SlackApi, `Slack refused the file bytes (HTTP ${response.status})`, {
      retryable: response.status >= 500,
    });
  }
  await client.files.completeUploadExternal({
    files: [{ id: ticket.file_id, title: file.title }],
    channel_id: target.channel,
    thread_ts: target.threadTs,
  });
  return { fileId: ticket.file_id };
}

/** Renders the timeline and uploads it, once: see TimelinePoster.post. */
export function slackTimelinePoster(
  client: Pick<SlackClient, "files" | "conversations">,
  options: {
    /**
     * Resolves once the file's claim is on the replicas REDIS_URL asks for: a file is uploaded
     * only when a failover cannot forget that it may have been.
     */
    confirmDurable?: () => Promise<void>;
  } = {},
): TimelinePoster {
  return {
    async post(target: ThreadTarget, chart: TimelineChart, file: TimelineFile, attempt = {}) {
      if (attempt.again) {
        const found = await findFileInThread(client, target, file.name);
        if (found) return { fileId: found };
      }
      await options.confirmDurable?.();
      const { png } = await renderPng(timelineSpec(chart));
      return uploadToThread(client, target, { ...file, bytes: png, type: "image/png" });
    },
  };
}

/** The id of a file shared in the thread under that name (newest pages first, bounded). */
export function findFileInThread(
  client: Pick<SlackClient, "conversations">,
  target: ThreadTarget,
  name: string,
): Promise<string | undefined> {
  return findInPages(
    (cursor) =>
      client.conversations.replies({
        channel: target.channel,
        ts: target.threadTs,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      }),
    (message) =>
      (message as { files?: Array<{ id?: string; name?: string }> }).files?.find((f) => f.name === name)?.id,
  );
}
