// What each long-running role needs before it may start. Format problems (a URL that is not one)
// are config.ts's; this is about settings that are each optional on their own but required for a
// role: a receiver without a webhook token would refuse every alert, a worker without a source
// could diagnose nothing, a bot without approvers would propose steps nobody may approve.

import type { BotRole } from "../bot/options.js";
import type { Env } from "../config.js";
import type { BotConfig } from "../core/settings.js";

const set = (env: Env, name: string) => (env[name] ?? "").trim() !== "";

/** Each evidence source's single-URL variable (flags and the simulator's bot set them too). */
export const SOURCE_URL_VARIABLES = {
  catalog: "ICEBERG_CATALOG_URL",
  flink: "FLINK_REST_URL",
  connect: "CONNECT_REST_URL",
  prometheus: "PROMETHEUS_URL",
} as const;
const SOURCES = Object.values(SOURCE_URL_VARIABLES);

/**
 * Problems from the environment alone (usable even when BOT_CONFIG did not parse); `declared`
 * counts the sources BOT_CONFIG's `sources:` names, which a worker may read instead.
 */
export function envRoleProblems(role: BotRole, env: Env, declared = 0): string[] {
  const problems: string[] = [];
  const receives = role !== "worker";
  const works = role !== "serve";
  if (!set(env, "SLACK_BOT_TOKEN")) problems.push("SLACK_BOT_TOKEN: required (the bot posts to Slack)");
  if (receives && !set(env, "SLACK_SIGNING_SECRET") && !set(env, "SLACK_APP_TOKEN")) {
    problems.push(
      "SLACK_SIGNING_SECRET or SLACK_APP_TOKEN: one is required (HTTP mode verifies signatures, Socket Mode connects with the app token)",
    );
  }
  if (receives && !set(env, "ALERT_WEBHOOK_TOKEN")) {
    problems.push("ALERT_WEBHOOK_TOKEN: required (without it every alert webhook is refused)");
  }
  if (works && declared === 0 && !SOURCES.some((name) => set(env, name))) {
    problems.push(
      `evidence sources: set at least one of ${SOURCES.join(", ")}, or name one in BOT_CONFIG sources`,
    );
  }
  return problems;
}

/** Problems that need BOT_CONFIG too: where incidents go, and who may approve a step. */
export function botConfigRoleProblems(role: BotRole, env: Env, bot: BotConfig): string[] {
  const problems: string[] = [];
  const tables = Object.entries(bot.tables);
  if (role !== "worker" && !set(env, "INCIDENT_CHANNEL") && bot.defaults.channel === undefined) {
    const unrouted = tables.filter(([, t]) => t.channel === undefined).map(([name]) => name);
    if (tables.length === 0 || unrouted.length > 0) {
      problems.push(
        `INCIDENT_CHANNEL: required unless BOT_CONFIG gives every table a channel${
          unrouted.length > 0 ? ` (no channel for ${unrouted.join(", ")})` : ""
        }`,
      );
    }
  }
  // Playbook steps are proposed whenever a diagnosis finds one; someone must be able to approve.
  if (bot.defaults.approvers.length === 0) {
    const without = tables.filter(([, t]) => (t.approvers ?? []).length === 0).map(([name]) => name);
    if (tables.length === 0 || without.length > 0) {
      problems.push(
        `BOT_CONFIG approvers: set defaults.approvers or approvers for every table${
          without.length > 0 ? ` (none for ${without.join(", ")})` : ""
        }; nobody could approve a proposed step`,
      );
    }
  }
  return problems;
}
