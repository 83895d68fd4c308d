// Ephemeral replies when a command cannot run: say what was wrong, offer the closest match, and
// give an example that works. Whatever the person typed is escaped before it is echoed.

import type { UsageErrorView } from "../../../services/view-models.js";
import type { SlackMessage } from "./block-kit.js";
import { section } from "./blocks.js";
import { escapeCode, escapeMrkdwn, mention } from "./limits.js";

function usageText(view: UsageErrorView): string {
  switch (view.kind) {
    case "unknown-table": {
      const input = escapeCode(view.input);
      const command = escapeCode(view.command);
      if (view.suggestion === undefined) {
        return `Unknown table \`${input}\`. Check the name (namespace.table) or add the table to the bot's configuration.`;
      }
      const suggestion = escapeCode(view.suggestion);
      return `Unknown table \`${input}\`. Did you mean \`${suggestion}\`? Try \`/iceberg ${command} ${suggestion}\``;
    }
    case "missing-table": {
      const command = escapeCode(view.command);
      return `\`/iceberg ${command}\` needs a table. Try \`/iceberg ${command} db.events\``;
    }
    case "unknown-command": {
      const hint = view.suggestion === undefined ? "" : ` Did you mean \`${escapeCode(view.suggestion)}\`?`;
      return `Unknown command \`${escapeCode(view.input)}\`.${hint} \`/iceberg help\` lists them all.`;
    }
    case "not-permitted": {
      const who = view.approvers.length === 0 ? "an approver" : view.approvers.map(mention).join(" or ");
      return `:no_entry: You can't ${escapeMrkdwn(view.action)} this step. Ask ${who}.`;
    }
    case "busy":
      return `:hourglass_flowing_sand: A change is already in progress on \`${escapeCode(view.table)}\`: ${escapeMrkdwn(view.detail)}`;
    case "rate-limited": {
      const per = view.windowSeconds === 60 ? "a minute" : `${view.windowSeconds} s`;
      const what =
        view.limited === "person"
          ? `You have reached ${view.limit} \`/iceberg\` requests in ${per}`
          : `\`${escapeCode(view.table ?? "")}\` has had ${view.limit} diagnoses asked for in ${per}`;
      // Slack shows the date token in the reader's time zone; the fallback is relative.
      const when = `<!date^${Math.floor(view.retryAt / 1000)}^{time_secs}|${view.retryIn}>`;
      return `:hourglass_flowing_sand: ${what}, so this one was not run. Please try again ${view.retryIn} (at ${when}).`;
    }
    case "failed": {
      const hint = view.hint === undefined ? "" : `\n${keepCodeSpans(view.hint)}`;
      return `:warning: ${keepCodeSpans(view.message)}${hint}`;
    }
  }
}

/**
 * A usage message names commands in `code`: those spans stay code (their text escaped as code, so
 * a typed `<!channel>` inside one is inert), and everything between them is escaped as mrkdwn.
 */
function keepCodeSpans(text: string): string {
  return text
    .split(/`([^`\n]+)`/)
    .map((part, i) => (i % 2 === 1 ? `\`${escapeCode(part)}\`` : escapeMrkdwn(part)))
    .join("");
}

export function renderUsageError(view: UsageErrorView): SlackMessage {
  const text = usageText(view);
  return { text, blocks: [section(text)] };
}

/** The immediate ephemeral acknowledgement of `/iceberg diagnose`. */
export function renderDiagnosingAck(table: string): SlackMessage {
  const text = `:mag: Diagnosing \`${escapeCode(table)}\`…`;
  return { text, blocks: [section(text)] };
}
