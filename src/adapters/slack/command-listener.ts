// `/iceberg …`: acknowledged first, recorded after. What the ack says needs no I/O (help, a usage
// error, "Diagnosing …"), so Slack gets it as soon as Bolt has verified the request, with no Redis
// round trip in front of it; the command is then recorded (a queued job). When Redis is known to be
// away the ack itself says so; when recording fails after the ack, the person is told through the
// command's response_url, which needs no Redis either. Nothing is dropped without a word.

import type { App } from "@slack/bolt";
import { parseCommandText } from "../../core/incident/command-text.js";
import { ackFor, dispatchCommand } from "../../services/commands.js";
import type { Enqueuer, LogLike } from "../../services/incident/deps.js";
import { NOT_RECORDED_TEXT, type Recorder, tellNotRecorded } from "./record.js";
import type { SlackMessage } from "./render/block-kit.js";
import type { Renderers } from "./renderers.js";
import { firstDelivery } from "./replay-guard.js";

export interface CommandListenerDeps {
  queues: Enqueuer;
  render: Pick<Renderers, "help" | "usageError" | "diagnosingAck">;
  record: Recorder;
  log: LogLike;
  /** `/iceberg sweep`; without it the command is only acknowledged. */
  requestSweep?: (request: { requestId: string; channel: string; user: string }) => Promise<void>;
}

function ephemeral(message: SlackMessage) {
  return { response_type: "ephemeral" as const, text: message.text, blocks: message.blocks };
}

export function registerCommandListener(app: App, deps: CommandListenerDeps): void {
  app.command("/iceberg", async ({ command, ack, respond, context }) => {
    const parsed = parseCommandText(command.text ?? "");
    const reply = ackFor(parsed);
    if (reply.kind === "help") return ack(ephemeral(deps.render.help()));
    if (reply.kind === "usage-error") return ack(ephemeral(deps.render.usageError(reply.error)));
    // A connection known to be down is a status check, not a round trip: say so in the ack.
    if (!deps.record.ready()) {
      deps.log.warn({ what: `command ${parsed.kind}` }, "redis unavailable, interaction not recorded");
      return ack({ response_type: "ephemeral", text: NOT_RECORDED_TEXT });
    }
    await ack(
      parsed.kind === "diagnose"
        ? ephemeral(deps.render.diagnosingAck(parsed.table))
        : { response_type: "ephemeral", text: reply.text },
    );
    // Told it failed (Redis slow): a check or enqueue still under way must not then record it.
    let told = false;
    const recorded = await deps.record.record(`command ${parsed.kind}`, async () => {
      // A replayed command (same trigger id) is acknowledged like the first, and not run again.
      if (!(await firstDelivery(context)) || told) return;
      await (parsed.kind === "sweep"
        ? deps.requestSweep?.({
            requestId: command.trigger_id,
            channel: command.channel_id,
            user: command.user_id,
          })
        : dispatchCommand(deps.queues, parsed, {
            channel: command.channel_id,
            user: command.user_id,
            requestId: command.trigger_id,
          }));
    });
    if (!recorded) {
      told = true;
      await tellNotRecorded(respond, deps.log);
    }
  });
}
