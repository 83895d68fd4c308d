// `/iceberg …` after the ack: the listener has already answered Slack (within its 3 s) with a
// usage error or a "working on it" line; this queues the work whose result arrives later.

import { retryIn } from "../core/command-rate.js";
import { type ParsedCommand, parseCommandText, type UsageProblem } from "../core/incident/command-text.js";
import type { InboxCommand } from "../core/jobs.js";
import type { IncidentDeps } from "./incident/deps.js";
import type { CommandRatePort } from "./ports.js";

interface CommandContext {
  channel: string;
  user: string;
  /** Unique per slash command invocation (Slack's trigger_id). */
  requestId: string;
}

/** What the immediate ephemeral ack says, before any I/O. */
export type CommandAck =
  | { kind: "help" }
  | { kind: "usage-error"; error: UsageProblem }
  | { kind: "working"; text: string };

export function ackFor(command: ParsedCommand): CommandAck {
  switch (command.kind) {
    case "help":
      return { kind: "help" };
    case "usage-error":
      return command;
    case "diagnose":
      return { kind: "working", text: `Diagnosing ${command.table}…` };
    case "audit":
      return { kind: "working", text: `Auditing ${command.table}…` };
    case "status":
      return { kind: "working", text: "Looking up open incidents…" };
    case "history":
      return { kind: "working", text: `Reading the history of ${command.table}…` };
    case "autopilot":
      return {
        kind: "working",
        text:
          command.action === "status"
            ? "Reading autopilot's state…"
            : `Switching autopilot ${command.action}…`,
      };
    case "sweep":
      return {
        kind: "working",
        text: "Starting a sweep of the catalog; the digest is posted when every table is graded…",
      };
  }
}

async function dispatchCommand(
  { queues, slack }: Pick<IncidentDeps, "queues" | "slack">,
  command: ParsedCommand,
  context: CommandContext,
): Promise<void> {
  switch (command.kind) {
    case "diagnose":
    case "audit":
      await queues.enqueueDiagnose({
        kind: "command",
        command: command.kind,
        table: command.table,
        channel: context.channel,
        user: context.user,
        requestId: context.requestId,
      });
      return;
    case "status":
      await slack.send({
        kind: "ephemeral",
        channel: context.channel,
        user: context.user,
        reply: { kind: "status" },
      });
      return;
    case "history":
      await slack.send({
        kind: "ephemeral",
        channel: context.channel,
        user: context.user,
        reply: { kind: "history", table: command.table },
      });
      return;
    case "help":
    case "usage-error":
    // The sweep has its own queue; the Slack app hands it over (see sweep-slack.ts).
    case "sweep":
    // The autopilot's switch is the autopilot's to set (services/autopilot).
    case "autopilot":
      return;
  }
}

export interface InboxCommandDeps extends Pick<IncidentDeps, "queues" | "slack"> {
  /** `/iceberg sweep`; without it the command is dropped (its ack already said what happens). */
  requestSweep?: (request: { requestId: string; channel: string; user: string }) => Promise<void>;
  /** Per-person and per-table limits; without it every command runs. */
  rate?: CommandRatePort;
  /**
   * Whether the person answers for the table (an approver, or working its open incident): a
   * table's limit that others filled never refuses them; their own limit still holds.
   */
  onCall?: (table: string, user: string) => Promise<boolean>;
  /** `/iceberg autopilot on|off|status`; without it the command is dropped. */
  autopilot?: (action: "on" | "off" | "status", request: { channel: string; user: string }) => Promise<void>;
  now?: () => number;
}

/**
 * A command the receiver recorded and acknowledged, carried out by a worker: its text is parsed
 * again (the receiver kept only what Slack sent) and its work queued under ids fixed by the
 * trigger id, so handling an entry twice queues it once.
 */
export async function runInboxCommand(deps: InboxCommandDeps, command: InboxCommand): Promise<void> {
  const parsed = parseCommandText(command.text);
  const context = { channel: command.channel, user: command.user, requestId: command.triggerId };
  if (parsed.kind === "sweep") {
    await deps.requestSweep?.(context);
    return;
  }
  if (parsed.kind === "autopilot") {
    await deps.autopilot?.(parsed.action, context);
    return;
  }
  if ((parsed.kind === "diagnose" || parsed.kind === "audit" || parsed.kind === "history") && deps.rate) {
    const table = parsed.kind === "history" ? undefined : parsed.table;
    let decision = await deps.rate.take({ user: command.user, ...(table ? { table } : {}) });
    // Asked only when the table's limit refused: the common case costs no lookup.
    if (
      !decision.allowed &&
      decision.limited === "table" &&
      table &&
      (await deps.onCall?.(table, command.user))
    )
      decision = { allowed: true };
    if (!decision.allowed) {
      // Past the first reply of the window, a person's flood is dropped without a word more.
      if (!decision.reply) return;
      const now = deps.now?.() ?? Date.now();
      await deps.slack.send({
        kind: "ephemeral",
        channel: command.channel,
        user: command.user,
        reply: {
          kind: "rate-limited",
          limited: decision.limited,
          ...(table ? { table } : {}),
          limit: decision.limit,
          windowSeconds: decision.windowSeconds,
          retryAt: decision.retryAt,
          retryIn: retryIn(now, decision.retryAt),
        },
      });
      return;
    }
  }
  await dispatchCommand(deps, parsed, context);
}
