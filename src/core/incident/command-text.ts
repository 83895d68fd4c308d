// Parses the text after `/iceberg` into a command, so the listener can ack with a usage error
// before touching anything else.

import { parseTableName } from "../table-name.js";
import { closestMatch } from "./closest-match.js";

const SUBCOMMANDS = ["diagnose", "audit", "status", "history", "sweep", "autopilot", "help"] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

export type ParsedCommand =
  | { kind: "diagnose" | "audit" | "history"; table: string }
  | { kind: "status" }
  | { kind: "sweep" }
  /** The autopilot's kill switch, for approvers (docs/autopilot.md). */
  | { kind: "autopilot"; action: "on" | "off" | "status" }
  | { kind: "help" }
  | { kind: "usage-error"; error: UsageProblem };

/** Shaped like the usage-error view the Slack renderer takes. */
export type UsageProblem =
  | { kind: "unknown-command"; input: string; suggestion?: string }
  | { kind: "missing-table"; command: string }
  | { kind: "failed"; message: string; hint?: string };

const EXAMPLES: Record<Subcommand, string> = {
  diagnose: "/iceberg diagnose db.events",
  audit: "/iceberg audit db.events",
  status: "/iceberg status",
  history: "/iceberg history db.events",
  sweep: "/iceberg sweep",
  autopilot: "/iceberg autopilot off",
  help: "/iceberg help",
};

export function parseCommandText(text: string): ParsedCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [first, ...rest] = words;
  if (!first) return { kind: "help" };
  const sub = first.toLowerCase();
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) {
    const near = closestMatch(sub, SUBCOMMANDS);
    return {
      kind: "usage-error",
      error: { kind: "unknown-command", input: truncate(first), suggestion: near },
    };
  }
  const command = sub as Subcommand;
  if (command === "status" || command === "help" || command === "sweep") {
    if (rest.length > 0) {
      return usage(`\`/iceberg ${command}\` takes no arguments.`, command);
    }
    return { kind: command };
  }
  if (command === "autopilot") {
    const action = rest[0]?.toLowerCase();
    if (rest.length !== 1 || (action !== "on" && action !== "off" && action !== "status"))
      return usage("`/iceberg autopilot` takes one of on, off or status.", command);
    return { kind: command, action };
  }
  if (rest.length === 0) return { kind: "usage-error", error: { kind: "missing-table", command } };
  if (rest.length > 1) return usage(`\`/iceberg ${command}\` takes exactly one table name.`, command);
  const table = rest[0]!;
  try {
    parseTableName(table);
  } catch (error) {
    return usage((error as Error).message, command);
  }
  return { kind: command, table };
}

function usage(message: string, command: Subcommand): ParsedCommand {
  return {
    kind: "usage-error",
    error: { kind: "failed", message, hint: `For example: ${EXAMPLES[command]}` },
  };
}

function truncate(word: string): string {
  return word.length > 40 ? `${word.slice(0, 40)}…` : word;
}
