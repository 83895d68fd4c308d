// The worker half of `start`, in its own process: it gets the config from its parent over IPC,
// runs the queue workers, and drains them when asked to stop, on SIGTERM, or when the parent is
// gone (its IPC channel closes), exiting within the shutdown deadline whatever Redis does. SIGINT is left to the parent (a terminal's Ctrl-C reaches both), which stops the
// receiver first and then asks this process to stop.

import type { Registry } from "prom-client";
import { SHUTDOWN_DEADLINE_MS, startBot } from "./main.js";
import { type ChildMessage, HEARTBEAT_EVERY_MS, type ParentMessage } from "./worker-supervisor.js";

const send = (message: ChildMessage) => process.send?.(message);

// The log pipe is the parent's: it may close before this process has drained (a parent killed, a
// benchmark that ended). Losing the log lines must not crash the drain, so the process goes on
// stopping as asked, silent.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
});
let stop: (() => Promise<void>) | undefined;
let registry: Registry | undefined;
let stopping = false;

/**
 * The metrics only this process counts (its jobs, diagnoses, Slack calls, runtime); what is read
 * from Redis (queues, backlogs, the sweep) and readiness the parent serves itself.
 */
const OWN_METRICS =
  /^(iceberg_bot_(jobs_total|diagnosis_seconds|slack_api_errors_total|slack_messages_dropped_total|source_)|process_|nodejs_)/;

const shutdown = () => {
  if (stopping) return;
  stopping = true;
  // Whatever Redis does (a start that never finishes, a drain that waits on a dead node), this
  // process ends within the deadline: it must never outlive its parent.
  setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
  // A stop that arrives while starting waits for the start (then stops what it started).
  void Promise.resolve(starting)
    .then(() => stop?.())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};

let starting: Promise<void> | undefined;
process.on("message", (message: ParentMessage) => {
  if (message.type === "start" && !starting) {
    starting = startBot(message.config, { ...message.options, role: "worker" }).then(
      (bot) => {
        stop = bot.stop;
        registry = bot.metricsRegistry;
        send({ type: "ready" });
        // The parent reports the workers not running when these stop (see worker-supervisor.ts).
        setInterval(() => {
          if (process.connected) send({ type: "heartbeat", failingSources: bot.sources.failing() });
        }, message.options.heartbeatEveryMs ?? HEARTBEAT_EVERY_MS).unref();
      },
      (error: unknown) => {
        send({ type: "failed", message: (error as Error).message });
        process.exit(1);
      },
    );
  } else if (message.type === "metrics") {
    const { id } = message;
    void (registry?.getMetricsAsJSON() ?? Promise.resolve([])).then(
      (all) => send({ type: "metrics", id, metrics: all.filter((m) => OWN_METRICS.test(m.name)) }),
      () => send({ type: "metrics", id, metrics: [] }),
    );
  } else if (message.type === "stop") shutdown();
});
process.on("SIGTERM", shutdown);
process.on("SIGINT", () => {});
process.on("disconnect", shutdown);
