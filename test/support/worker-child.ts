// A bot worker in a process of its own, for drills that kill one for real (SIGKILL, no shutdown),
// and the options the worker that takes over starts with.

import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { CHANNEL, type Harness } from "../integration/bot/harness.js";
import { REDIS_URL } from "./redis.js";

/** Short leases and locks: the worker that takes over picks up the killed one's jobs and queues. */
export const childWorkerOptions = (harness: Harness) => ({
  namespace: harness.scope.namespace,
  queuePrefix: harness.scope.queuePrefix,
  queueNames: harness.scope.queueNames,
  lockDurationMs: 2000,
  stalledIntervalMs: 1000,
  backoffMs: 100,
  // The killed process held the incident's Slack queue: the next one takes it after the lease.
  slackDelivery: { leaseMs: 2000 },
  remediation: { followUpIntervalMs: 300 },
});

/** Starts bot-worker-child.ts against the harness's lakehouse; resolves once it says "ready". */
export function startChildWorker(
  harness: Harness,
  botConfig: string,
  crashAt?: "before-history" | "after-history" | "after-approve" | "after-apply",
): Promise<ChildProcess> {
  const lake = harness.lakehouse!;
  const env = {
    REDIS_URL,
    SLACK_BOT_TOKEN: "xoxb-stand-in",
    SLACK_API_URL: harness.standIn.apiUrl,
    INCIDENT_CHANNEL: CHANNEL,
    ICEBERG_CATALOG_URL: lake.urls.catalog,
    FLINK_REST_URL: lake.urls.flink,
    CONNECT_REST_URL: lake.urls.connect,
    PROMETHEUS_URL: lake.urls.prometheus,
    BOT_CONFIG: botConfig,
    LOG_LEVEL: "silent",
    SOURCE_TIMEOUT_MS: "5000",
  };
  const script = path.resolve(import.meta.dirname, "bot-worker-child.ts");
  const spec = { env, options: childWorkerOptions(harness), ...(crashAt ? { crashAt } : {}) };
  const proc = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, BOT_CHILD: JSON.stringify(spec) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    proc.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(proc);
    });
    proc.once("exit", (code) => reject(new Error(`the worker child exited early (${code})`)));
  });
}
