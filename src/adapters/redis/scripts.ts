// The bot's Lua scripts, one file each in ./scripts (the build copies them beside this module).
// A script is defined on a client the first time it runs there (ioredis defineCommand): after
// that it is sent by SHA, its text only when Redis has lost it. A line `--- @include "name"`
// inlines ./scripts/includes/name.lua once, so logic several scripts share is written once.
// Every key a script touches shares the store's hash tag, so each runs on one Cluster slot.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RedisClient } from "./connection.js";

export const SCRIPT_NAMES = [
  "audit-append",
  "command-inbox-push",
  "count-in-windows",
  "deferred-alerts-defer",
  "deferred-alerts-prune",
  "deferred-alerts-reserve",
  "first-time-each",
  "history-save",
  "incident-close",
  "incident-intake",
  "incident-open-or-join",
  "incident-purge",
  "outbox-append",
  "outbox-claim",
  "outbox-done",
  "outbox-drop-head",
  "remark-add",
  "remediation-save",
  "remediation-save-with-outbox",
  "slack-delay-record",
  "sweep-finish-task",
  "sweep-promote",
] as const;

export type ScriptName = (typeof SCRIPT_NAMES)[number];

export const SCRIPTS_DIR = fileURLToPath(new URL("./scripts/", import.meta.url));

const INCLUDE = /^--- @include "([\w-]+)"$/gm;

/** A script's text with its includes inlined, each once. */
export function scriptSource(name: string): string {
  const included = new Set<string>();
  const expand = (text: string): string =>
    text.replace(INCLUDE, (_, include: string) => {
      if (included.has(include)) return "";
      included.add(include);
      return expand(readFileSync(`${SCRIPTS_DIR}includes/${include}.lua`, "utf8"));
    });
  return expand(readFileSync(`${SCRIPTS_DIR}${name}.lua`, "utf8"));
}

/** Read once, when the module loads: a script missing from the build fails at start, not mid-incident. */
const SOURCES = new Map<ScriptName, string>(SCRIPT_NAMES.map((name) => [name, scriptSource(name)]));

type ScriptCommand = (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<unknown>;

const defined = new WeakMap<RedisClient, Set<ScriptName>>();

/** The method name defineCommand gives the script on a client ("incident-intake" → "lua_incident_intake"). */
function commandName(name: ScriptName): string {
  return `lua_${name.replaceAll("-", "_")}`;
}

/** Runs a script with its keys (KEYS) and arguments (ARGV); defines it on the client the first time. */
export function runScript(
  redis: RedisClient,
  name: ScriptName,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  let names = defined.get(redis);
  if (!names) {
    names = new Set();
    defined.set(redis, names);
  }
  if (!names.has(name)) {
    redis.defineCommand(commandName(name), { lua: SOURCES.get(name)! });
    names.add(name);
  }
  const command = (redis as unknown as Record<string, ScriptCommand>)[commandName(name)]!;
  return command.call(redis, keys.length, ...keys, ...args);
}
