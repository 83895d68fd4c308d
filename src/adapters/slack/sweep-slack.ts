// The listeners for the sweep digest's buttons. They ack at once and only record the click as a
// queued job (or tell the person it could not be recorded), as every listener here does; a worker
// audits the table or opens its incident, and the digest and audits go out through the outbox.

import type { BlockAction, ButtonAction } from "@slack/bolt";
import type { LogLike } from "../../services/incident/deps.js";
import type { SweepQueues } from "../queue/sweep-queue.js";
import type { ListenerRouter } from "./listener-router.js";
import { type Recorder, tellNotRecorded } from "./record.js";
import { decodeSweepValue, SWEEP_ACTIONS } from "./render/sweep-digest.js";

/** Queues an audit, or "start the fix" for a table (a worker opens the incident and answers the person). */
export type SweepListenerDeps = Pick<SweepQueues, "requestAudit" | "requestFix">;

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
