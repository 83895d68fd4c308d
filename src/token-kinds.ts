// Slack tokens carry their kind in their prefix. A token of the wrong kind in a variable (a bot
// token in SLACK_APP_TOKEN, the two swapped) can never work, and Slack's answer to it reads like a
// transient failure, so the bot would retry forever: caught at start, with the fix.

export function slackTokenProblems(env: { SLACK_BOT_TOKEN?: string; SLACK_APP_TOKEN?: string }): string[] {
  const problems: string[] = [];
  const bot = env.SLACK_BOT_TOKEN?.trim();
  const app = env.SLACK_APP_TOKEN?.trim();
  if (app && !app.startsWith("xapp-")) {
    const kind = kindOf(app);
    problems.push(
      `SLACK_APP_TOKEN holds ${kind}, not an app-level token (xapp-…). Create one under Basic Information → App-Level Tokens with the connections:write scope${kind === "a bot token (xoxb-…)" ? "; the xoxb- token belongs in SLACK_BOT_TOKEN" : ""}.`,
    );
  }
  if (bot && !bot.startsWith("xoxb-")) {
    const kind = kindOf(bot);
    problems.push(
      `SLACK_BOT_TOKEN holds ${kind}, not a bot token (xoxb-…). Copy the Bot User OAuth Token from OAuth & Permissions${kind === "an app-level token (xapp-…)" ? "; the xapp- token belongs in SLACK_APP_TOKEN" : ""}.`,
    );
  }
  return problems;
}

function kindOf(token: string): string {
  if (token.startsWith("xoxb-")) return "a bot token (xoxb-…)";
  if (token.startsWith("xapp-")) return "an app-level token (xapp-…)";
  if (token.startsWith("xoxp-")) return "a user token (xoxp-…)";
  if (token.startsWith("xoxe")) return "a refresh or config token (xoxe…)";
  return "something that is not a Slack token";
}
