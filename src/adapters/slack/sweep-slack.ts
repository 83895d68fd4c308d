// The sweep in Slack: the digest posted once per sweep, an audit posted in the digest's thread
// when someone asks for it, and the listeners for the digest's buttons. Listeners ack at once and
// only record the click as a queued job (or tell the person it could not be recorded), as every
// listener here does; a worker audits the table or opens its incident.

import type { BlockAction, ButtonAction } from "@slack/bolt";
import type { AuditReport } from "../../core/report/schema.js";
import type { Digest } from "../../core/sweep/digest.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { LogLike } from "../../services/incident/deps.js";
import type { Claims } from "../store/claims.js";
import type { ListenerRouter } from "./listener-router.js";
import { type Recorder, tellNotRecorded } from "./record.js";
import type { SlackMessage } from "./render/block-kit.js";
import { decodeSweepValue, renderSweepDigest, SWEEP_ACTIONS } from "./render/sweep-digest.js";
import type { Renderers } from "./renderers.js";
import type { SlackClient } from "./web-client.js";

export interface SweepSlackDeps {
  client: Pick<SlackClient, "chat">;
  claims: Claims;
}

function args(message: SlackMessage) {
  return message.blocks.length > 0 ? { text: message.text, blocks: message.blocks } : { text: message.text };
}

async function slackCall<T>(method: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw new CodedError(ErrorCode.SlackApi, `Slack ${method} failed: ${(error as Error).message}`, {
      retryable: true,
      cause: error,
      hint: "The job is retried with backoff; check the bot token and Slack's status if it keeps failing.",
    });
  }
}

/** Claim, post, record: a retried finish job finds the digest posted and stops there. */
async function postOnce(
  deps: SweepSlackDeps,
  scope: string,
  name: string,
  owner: string,
  post: () => Promise<string>,
) {
  const claim = await deps.claims.claim(scope, name, owner);
  if (claim.kind === "done") return claim.ts;
  if (claim.kind === "held-by-other") {
    throw new CodedError(ErrorCode.SlackApi, `The ${name} of ${scope} is being posted by another job.`, {
      retryable: true,
    });
  }
  let ts: string;
  try {
    ts = await post();
  } catch (error) {
    await deps.claims.release(scope, name, owner);
    throw error;
  }
  await deps.claims.complete(scope, name, ts);
  return ts;
}

export async function postDigest(
  deps: SweepSlackDeps,
  sweepId: string,
  channel: string,
  digest: Digest,
): Promise<string> {
  return postOnce(deps, `sweep-${sweepId}`, "digest", "finish", async () => {
    const result = await slackCall("chat.postMessage", () =>
      deps.client.chat.postMessage({ channel, ...args(renderSweepDigest(digest)), unfurl_links: false }),
    );
    return String(result.ts);
  });
}

export async function postAuditInThread(
  deps: SweepSlackDeps & { render: Pick<Renderers, "audit"> },
  request: { jobId: string; channel: string; threadTs: string },
  report: AuditReport,
): Promise<void> {
  await postOnce(deps, "sweep-audits", request.jobId, request.jobId, async () => {
    const result = await slackCall("chat.postMessage", () =>
      deps.client.chat.postMessage({
        channel: request.channel,
        thread_ts: request.threadTs,
        ...args(deps.render.audit(report)),
      }),
    );
    return String(result.ts);
  });
}

export interface SweepListenerDeps {
  requestAudit(request: {
    requestId: string;
    table: string;
    channel: string;
    threadTs: string;
    user: string;
  }): Promise<void>;
  /** Queues "start the fix" for a table; a worker opens the incident and answers the person. */
  requestFix(request: { requestId: string; table: string; channel: string; user: string }): Promise<void>;
}

export const SWEEP_ACTION_IDS: readonly string[] = Object.values(SWEEP_ACTIONS);

export function registerSweepListeners(
  router: ListenerRouter,
  deps: SweepListenerDeps,
  log: LogLike,
  recorder: Recorder,
): void {
  router.action<BlockAction<ButtonAction>>(SWEEP_ACTIONS.audit, async ({ ack, body, action, respond }) => {
    await ack();
    const value = decodeSweepValue(action.value);
    const channel = body.channel?.id ?? body.container?.channel_id;
    const threadTs = body.message?.thread_ts ?? body.message?.ts ?? body.container?.message_ts;
    if (!value || !channel || !threadTs) return;
    const recorded = await recorder.record("sweep audit", () =>
      deps.requestAudit({
        requestId: body.trigger_id,
        table: value.table,
        channel,
        threadTs,
        user: body.user.id,
      }),
    );
    if (!recorded) await tellNotRecorded(respond, log);
  });

  router.action<BlockAction<ButtonAction>>(SWEEP_ACTIONS.fix, async ({ ack, body, action, respond }) => {
    await ack();
    const value = decodeSweepValue(action.value);
    const channel = body.channel?.id ?? body.container?.channel_id;
    if (!value || !channel) return;
    const recorded = await recorder.record("sweep fix", () =>
      deps.requestFix({ requestId: body.trigger_id, table: value.table, channel, user: body.user.id }),
    );
    if (!recorded) await tellNotRecorded(respond, log);
  });
}
