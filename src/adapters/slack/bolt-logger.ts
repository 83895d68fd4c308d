// Bolt's Logger interface over pino, so Bolt's own lines go through our redaction.

import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "pino";

export function boltLogger(log: Logger): BoltLogger {
  let level = LogLevel.WARN;
  const text = (args: unknown[]) => args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ");
  return {
    debug: (...args: unknown[]) => log.debug({ from: "bolt" }, text(args)),
    info: (...args: unknown[]) => log.info({ from: "bolt" }, text(args)),
    warn: (...args: unknown[]) => log.warn({ from: "bolt" }, text(args)),
    error: (...args: unknown[]) => log.error({ from: "bolt" }, text(args)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
