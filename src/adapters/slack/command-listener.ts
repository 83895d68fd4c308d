// `/iceberg …`: acknowledged first, recorded after. What the ack says needs no I/O (help, a usage
// error, "Diagnosing …"), so Slack gets it as soon as Bolt has verified the request, with no Redis
// round trip in front of it; the command is then recorded in the command inbox (one script for a
// few milliseconds' commands, which also drops repeat deliveries) and a worker queues its work.
// When Redis is known to be away the ack itself says so; when recording fails after the ack, the
// person is told through the command's response_url, which needs no Redis either. Nothing is
// dropped without a word.
//
// The receiver hands each command here straight from Bolt's verification (see app.ts), not through
// a Bolt listener: all it needs is the command, its ack and its response_url.

import type { AckFn, RespondArguments, RespondFn, SlashCommand } from "@slack/bolt";
import { parseCommandText } from "../../core/incident/command-text.js";
import type { InboxCommand } from "../../core/jobs.js";
import { ackFor } from "../../services/commands.js";
import type { LogLike } from "../../services/incident/deps.js";
import { NOT_RECORDED_TEXT, type Recorder, tellNotRecorded, tellRecordedLate } from "./record.js";
import type { SlackMessage } from "./render/block-kit.js";
import { renderDiagnosingAck, renderUsageError } from "./render/errors.js";
import { renderHelp } from "./render/help.js";

export interface CommandListenerDeps {
  /** Records a command once; false for a repeat delivery (then nothing more is done). */
  inbox: { push(command: InboxCommand): Promise<boolean> };
  record: Recorder;
  log: LogLike;
}

function ephemeral(message: SlackMessage) {
  return { response_type: "ephemeral" as const, text: message.text, blocks: message.blocks };
}

/** The slash command this app answers; any other is left to Bolt. */
const COMMAND = "/iceberg";

export interface CommandRequest {
  command: SlashCommand;
  ack: AckFn<string | RespondArguments>;
  respond: RespondFn;
}

/** A body Slack sent for our slash command (already verified by the receiver). */
export function isOurCommand(body: unknown): body is SlashCommand {
  return typeof body === "object" && body !== null && (body as { command?: unknown }).command === COMMAND;
}

export function createCommandHandler(deps: CommandListenerDeps): (request: CommandRequest) => Promise<void> {
  return async ({ command, ack, respond }) => {
    const parsed = parseCommandText(command.text ?? "");
    const reply = ackFor(parsed);
    if (reply.kind === "help") return ack(ephemeral(renderHelp()));
    if (reply.kind === "usage-error") return ack(ephemeral(renderUsageError(reply.error)));
    // A connection known to be down is a status check, not a round trip: say so in the ack.
    if (!deps.record.ready()) {
      deps.log.warn({ what: `command ${parsed.kind}` }, "redis unavailable, interaction not recorded");
      return ack({ response_type: "ephemeral", text: NOT_RECORDED_TEXT });
    }
    await ack(
      parsed.kind === "diagnose"
        ? ephemeral(renderDiagnosingAck(parsed.table))
        : { response_type: "ephemeral", text: reply.text },
    );
    let pushing: Promise<boolean> | undefined;
    const recorded = await deps.record.record(`command ${parsed.kind}`, () => {
      pushing = deps.inbox.push({
        text: command.text ?? "",
        channel: command.channel_id,
        user: command.user_id,
        triggerId: command.trigger_id,
      });
      return pushing;
    });
    if (recorded) return;
    await tellNotRecorded(respond, deps.log);
    // Redis answered after the person was told: the command is on its way, and they should know.
    // Not awaited: a connection that never answers must not keep this request in flight.
    void pushing?.then(
      (first) => (first ? tellRecordedLate(respond, deps.log) : undefined),
      () => {},
    );
  };
}
