// Ack latency of signed `/iceberg diagnose` slash commands, 200 at once, against a bare Bolt app
// that only acks: what our listener adds before Slack gets its answer. The load comes from a
// separate process; both apps are measured the same way, one after the other. Goal: <= 1.1x.

import { execFile } from "node:child_process";
import type { Server } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { percentile, startBenchBots } from "./_bot-setup.js";

const execFileAsync = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));

const CONCURRENCY = 200;
const ROUNDS = 3;

/** Fires the signed commands from a separate process and returns the sorted latencies. */
async function measure(url: string, secret: string): Promise<number[]> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--import", "tsx", join(here, "_ack-load.ts"), url, secret, String(CONCURRENCY), String(ROUNDS)],
    { maxBuffer: 16 << 20 },
  );
  return (JSON.parse(stdout.trim()) as number[]).sort((a, b) => a - b);
}

async function bareBolt(secret: string): Promise<{ url: string; close(): Promise<void> }> {
  const receiver = new HTTPReceiver({ signingSecret: secret, logLevel: LogLevel.ERROR });
  const app = new App({
    receiver,
    authorize: async () => ({ botToken: "xoxb-bare" }),
    logLevel: LogLevel.ERROR,
  });
  app.command("/iceberg", async ({ ack }) => {
    await ack({ response_type: "ephemeral", text: "ok" });
  });
  const server = (await receiver.start(0)) as Server;
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/slack/events`,
    close: async () => {
      await app.stop();
    },
  };
}

export async function run(): Promise<Record<string, number | string>> {
  // serve only: the commands queue up, no worker runs, so we time the ack path alone.
  const bench = await startBenchBots("ack", 1, { role: "serve" });
  const bare = await bareBolt(bench.secret);
  try {
    const ours = await measure(`http://127.0.0.1:${bench.bots[0]!.port}/slack/events`, bench.secret);
    const baseline = await measure(bare.url, bench.secret);
    return {
      "ack.concurrency": CONCURRENCY,
      "ack.requests": ours.length,
      "ack.p50_ms": percentile(ours, 50),
      "ack.p99_ms": percentile(ours, 99),
      "ack.bare_bolt_p50_ms": percentile(baseline, 50),
      "ack.bare_bolt_p99_ms": percentile(baseline, 99),
      "ack.p50_ratio": percentile(ours, 50) / percentile(baseline, 50),
      "ack.p99_ratio": percentile(ours, 99) / percentile(baseline, 99),
    };
  } finally {
    await bare.close();
    await bench.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
