// What a command may touch, injected so runCli works in-process in tests exactly as from a shell.

import { writeFileSync } from "node:fs";
import type { Config, Env } from "../config.js";
import { readSmallFile } from "../util/read-small-file.js";

export interface CliStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  /** The environment; only main.ts passes process.env. */
  env: Env;
  stdout: CliStream;
  stderr: CliStream;
  /** Clock for reports (default Date.now). */
  now?: () => number;
  /** Reads --config and BOT_CONFIG files (default fs). */
  readFile?: (path: string) => string;
  /** Writes --chart pictures and demo images (default fs). */
  writeFile?: (path: string, bytes: Uint8Array) => void;
  /** Stops long-running commands (sim); main.ts aborts it on Ctrl-C. */
  signal?: AbortSignal;
}

/** One run of a command, as runCli hands it over. */
export interface CommandCall {
  command: string;
  args: readonly string[];
  io: CliIo;
  /** Told each config the command loads, so an error's report scrubs its secrets. */
  onConfig: (config: Readonly<Config>) => void;
}

export function writeFileOf(io: CliIo): (path: string, bytes: Uint8Array) => void {
  return io.writeFile ?? ((path, bytes) => writeFileSync(path, bytes));
}

export function readFileOf(io: CliIo): (path: string) => string {
  return io.readFile ?? ((path) => readSmallFile(path));
}

/** Colour only for a terminal, and never when NO_COLOR is set (no-color.org) or TERM is dumb. */
export function useColor(io: CliIo): boolean {
  return io.stdout.isTTY === true && !io.env.NO_COLOR && io.env.TERM !== "dumb";
}

export function writeLine(stream: CliStream, text = ""): void {
  stream.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Until `io.signal` aborts (Ctrl-C), or forever without one. */
export function untilAborted(io: CliIo): Promise<void> {
  const { signal } = io;
  if (!signal) return new Promise<void>(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
