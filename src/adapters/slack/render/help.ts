// `/iceberg help`: each command once, with an example that works as typed.

import type { SlackMessage } from "./block-kit.js";
import { context, section } from "./blocks.js";
import { escapeCode } from "./limits.js";

const COMMANDS: ReadonlyArray<{ usage: string; does: string; example: string }> = [
  {
    usage: "/iceberg diagnose <table>",
    does: "reads the catalog, Flink and Kafka Connect and says why commits fail",
    example: "/iceberg diagnose db.events",
  },
  {
    usage: "/iceberg audit <table>",
    does: "grades the table against the concurrent-writers checklist",
    example: "/iceberg audit db.events",
  },
  {
    usage: "/iceberg status",
    does: "lists open incidents with their state and thread",
    example: "/iceberg status",
  },
  {
    usage: "/iceberg history <table>",
    does: "lists the table's past incidents, newest first, with the step that fixed each, then who proposed, approved and applied what, and when",
    example: "/iceberg history db.events",
  },
  {
    usage: "/iceberg sweep",
    does: "grades every table of the catalog now and posts a digest of the worst",
    example: "/iceberg sweep",
  },
  {
    usage: "/iceberg autopilot on|off|status",
    does: "approvers switch autopilot on or off for every table at once; status shows its state and its shadow agreement",
    example: "/iceberg autopilot status",
  },
  { usage: "/iceberg help", does: "shows this list", example: "/iceberg help" },
];

export function renderHelp(): SlackMessage {
  // Slack reads `<table>` as a control sequence even inside code: the brackets go as entities.
  const lines = COMMANDS.map(
    (c) => `*\`${escapeCode(c.usage)}\`*: ${c.does}\n      e.g. \`${escapeCode(c.example)}\``,
  );
  return {
    text: "Iceberg bot commands: diagnose, audit, status, history, sweep, autopilot, help",
    blocks: [
      section(`*Iceberg bot commands*\n${lines.join("\n")}`),
      context("Tables are named namespace.table. Buttons in incident threads need an approver."),
    ],
  };
}
