// Ack latency of signed `/iceberg diagnose` slash commands, 200 at once, against a bare Bolt app
// that only acks: what our listener adds before Slack gets its answer.

import type { Server } from "node:http";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { percentile, pooled, signedSlashCommand, startBenchBots } from "./_bot-setup.js";

const CONCURRENCY = 200;
const ROUNDS = 3;

async function measure(url: string, secret: string): Promise<number[]> {
  const all: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const latencies = await pooled(CONCURRENCY, CONCURRENCY, async (i) => {
      const { body, headers } = signedSlashCommand(secret, "diagnose db.events", round * CONCURRENCY + i);
      const response = await fetch(url, { method: "POST", headers, body });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`${url} answered ${response.status}: ${text.slice(0, 200)}`);
    });
    // The first round warms connections and JIT; only later rounds count.
    if (round > 0) all.push(...latencies);
  }
  return all.sort((a, b) => a - b);
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
    };
  } finally {
    await bare.close();
    await bench.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
