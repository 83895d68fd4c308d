// Failures at start that are not bugs: a port someone else holds, a Slack token Slack refuses.
// Left uncoded they would read "a bug in iceberg-bot" (exit 70); they are configuration (exit 2),
// with what to change.

import { SLACK_TOKEN_ERRORS } from "../adapters/http/health.js";
import { CodedError, ErrorCode, isCodedError } from "../errors.js";

/** The coded error a start-up failure should be, or the error itself when it is not one of ours. */
export function explainStartupError(error: unknown, port: number): unknown {
  if (isCodedError(error) && error.code !== ErrorCode.Internal) return error;
  for (const link of causeChain(error)) {
    const code = (link as { code?: unknown }).code;
    if (code === "EADDRINUSE") {
      return new CodedError(ErrorCode.ConfigInvalid, `Port ${port} is already in use.`, {
        hint: "Stop the other program (or the other iceberg-bot) listening on it, or set PORT to a free port.",
        cause: error,
      });
    }
    if (code === "EACCES" && (link as { syscall?: unknown }).syscall === "listen") {
      return new CodedError(ErrorCode.ConfigInvalid, `Not allowed to listen on port ${port}.`, {
        hint: "Ports below 1024 need privileges; set PORT to 1024 or above.",
        cause: error,
      });
    }
    const slack = (link as { data?: { error?: unknown } }).data?.error;
    if (typeof slack === "string" && SLACK_TOKEN_ERRORS.has(slack)) {
      return new CodedError(ErrorCode.ConfigInvalid, `Slack refused the bot's token at start (${slack}).`, {
        hint:
          slack === "not_allowed_token_type"
            ? "A token of the wrong kind: SLACK_APP_TOKEN takes the app-level token (xapp-…, connections:write), SLACK_BOT_TOKEN the bot token (xoxb-…)."
            : "Check SLACK_BOT_TOKEN and SLACK_APP_TOKEN: copy them again from the app's settings (the token may have been revoked or the app reinstalled).",
        cause: error,
      });
    }
  }
  return error;
}

function causeChain(error: unknown): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    out.push(current);
    if (current instanceof AggregateError) out.push(...current.errors);
    current = (current as { cause?: unknown }).cause ?? (current as { original?: unknown }).original;
  }
  return out;
}
