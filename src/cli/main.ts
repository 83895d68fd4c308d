#!/usr/bin/env node
// The iceberg-bot executable: the only place that hands process.env and the real streams to the CLI.

import { runCli } from "./run-cli.js";

const argv = process.argv.slice(2);
const command = argv[0] ?? "";
const controller = new AbortController();
if (command === "sim" || command === "dev") {
  // First Ctrl-C (or SIGTERM) stops cleanly: the bot, its keys and any private redis-server; a
  // second one falls back to the default (kill).
  process.once("SIGINT", () => controller.abort());
  process.once("SIGTERM", () => controller.abort());
}

// A closed pipe (`iceberg-bot diagnose db.events | head -3`) is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

const code = await runCli(argv, {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
});

// Every command has finished its work (the bot and the simulator return only after shutting down),
// so exit once the output is flushed instead of waiting for idle keep-alive sockets.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
