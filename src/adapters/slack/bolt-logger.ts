// Bolt's Logger interface over pino, so Bolt's own lines go through our redaction.

import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "pino";

export function boltLogger(log: Logger): BoltLogger {
  let level = LogLevel.WARN;
  const text = (args: unknown[]) => args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ");
  // Bolt logs debug lines on every request: they are formatted only when they would be written.
  const at =
    (name: "debug" | "info" | "warn" | "error") =>
    (...args: unknown[]) => {
      if (log.isLevelEnabled(name)) log[name]({ from: "bolt" }, text(args));
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
