// Composition root: config -> connections -> what every part shares (built once) -> the parts
// this process runs, started in order and stopped in the reverse order on SIGTERM/SIGINT:
//
//   connections   Redis (src/bot/connections.ts)
//   queues        BullMQ producers (src/bot/shared.ts)
//   workers       queue workers, the Slack outbox's poster, the command inbox reader, the intake
//                 promise keeper (src/bot/workers.ts); or, for `start`, the supervised worker
//                 process that runs them, so diagnoses never share the event loop that acks
//   sweep         the catalog sweep's workers and schedule (src/bot/sweep.ts)
//   receiver      the one HTTP server: Slack, the alert webhooks, health and metrics (src/bot/receiver.ts)

import type { Logger } from "pino";
import { isQuiet } from "./adapters/http/metrics/backlogs.js";
import { createLogger } from "./adapters/log.js";
import { openConnections } from "./bot/connections.js";
import {
  checkSlackTokenAtStart,
  healthMonitorPart,
  retentionPart,
  workerOpsServerPart,
} from "./bot/operations.js";
import { type Bot, type BotOptions, type BotRole, runsWorkers, workersInChild } from "./bot/options.js";
import { Lifecycle, type Part } from "./bot/part.js";
import { type ReceiverPart, receiverPart } from "./bot/receiver.js";
import { assemble, type Shared } from "./bot/shared.js";
import { sweepPart } from "./bot/sweep.js";
import {
  commandInboxReaderPart,
  intakePromiseKeeperPart,
  outboxPosterPart,
  queueWorkersPart,
  workerProcessPart,
} from "./bot/workers.js";
import { type Config, redactConfig } from "./config.js";
import { CodedError, ErrorCode } from "./errors.js";

export type { Bot, BotOptions, BotRole } from "./bot/options.js";

export async function startBot(config: Config, input: BotOptions = {}): Promise<Bot> {
  const options = { ...input, role: input.role ?? "start" };
  const log = options.log ?? createLogger(config);
  if (options.role !== "worker" && config.slack.mode === "http" && !config.slack.signingSecret) {
    throw new CodedError(ErrorCode.ConfigInvalid, "SLACK_SIGNING_SECRET is not set.", {
      hint: "Set it from the app's Basic Information page, or set SLACK_APP_TOKEN to use Socket Mode.",
    });
  }
  // A token Slack refuses stops the process before anything starts (exit 2 from the CLI).
  await checkSlackTokenAtStart({ config, log });
  const lifecycle = new Lifecycle(log);
  const connections = await lifecycle.start(openConnections(config, log));
  try {
    const shared = await assemble(config, options, connections, log);
    await lifecycle.start(shared.queuesPart);
    const parts = await startParts(lifecycle, shared);
    return botHandle(shared, parts, () => lifecycle.stop());
  } catch (error) {
    await lifecycle.stop().catch(() => {});
    throw error;
  }
}

interface Running {
  workers?: ReturnType<typeof queueWorkersPart>;
  poster?: ReturnType<typeof outboxPosterPart>;
  workerProcess?: ReturnType<typeof workerProcessPart>;
  sweep?: ReturnType<typeof sweepPart>;
  receiver?: ReceiverPart;
  ops?: ReturnType<typeof workerOpsServerPart>;
}

/** The parts of this process's role, each started once, in order. */
async function startParts(lifecycle: Lifecycle, shared: Shared): Promise<Running> {
  const { role } = shared.options;
  // Discovery first (only where workers run): every part reading Flink through it stops before it.
  if (shared.flinkDiscovery) await lifecycle.start(shared.flinkDiscovery);
  const inChild = workersInChild(shared.options);
  const running: Running = {};
  await lifecycle.start(healthMonitorPart(shared));
  if (runsWorkers(shared.options)) {
    running.workers = await lifecycle.start(queueWorkersPart(shared));
    running.poster = outboxPosterPart(shared);
    const others: Part[] = [
      commandInboxReaderPart(shared),
      intakePromiseKeeperPart(shared),
      running.poster,
      retentionPart(shared),
    ];
    for (const part of others) await lifecycle.start(part);
    // Wherever the diagnosis workers run, the sweep runs too.
    running.sweep = await lifecycle.start(sweepPart(shared));
  }
  if (inChild) running.workerProcess = await lifecycle.start(workerProcessPart(shared));
  // `start` serves its worker child's metrics in its own scrape.
  const child = running.workerProcess;
  const childReports = child
    ? {
        metrics: () => child.supervisor?.metrics() ?? Promise.resolve([]),
        failingSources: () => child.supervisor?.failingSources() ?? [],
      }
    : undefined;
  if (role !== "worker") running.receiver = await lifecycle.start(receiverPart(shared, childReports));
  // A worker answers probes and scrapes on its own port (start's child leaves that to its parent).
  const { metricsPort } = shared.options;
  if (role === "worker" && metricsPort !== undefined)
    running.ops = await lifecycle.start(workerOpsServerPart(shared, metricsPort));
  return running;
}

function botHandle(shared: Shared, running: Running, stop: () => Promise<void>): Bot {
  const { queues, remediationQueue, sweepQueues, outbox, commandInbox } = shared;
  const app = running.receiver?.app;
  return {
    port: running.receiver?.port,
    metricsPort: running.ops?.port,
    metricsRegistry: shared.metrics.registry,
    sources: shared.sourceWatch,
    app,
    queues,
    remediationQueue,
    workers: running.workers?.workers,
    outboxPoster: running.poster?.poster,
    workerProcess: running.workerProcess?.supervisor,
    store: shared.store,
    redis: shared.connections.redis,
    log: shared.log,
    remediation: shared.remediation,
    sweep: { queues: sweepQueues, store: shared.sweepStore, runtime: running.sweep?.runtime },
    async quiet() {
      // What the receiver is still doing for requests already answered comes first.
      await app?.settled();
      return isQuiet({
        retried: [queues.diagnose, queues.slack],
        scheduled: [remediationQueue.queue, sweepQueues.control, sweepQueues.catalog],
        slackOutbox: outbox,
        commandInbox,
      });
    },
    stop,
  };
}

/** How long SIGTERM may take: beyond it (Redis away, a job stuck) the process exits anyway. */
export const SHUTDOWN_DEADLINE_MS = 15_000;

/**
 * Runs until SIGTERM/SIGINT, then shuts down in order. Resolves with the exit code: 0 after a
 * clean shutdown, 1 when it failed or the deadline passed. A signal during start-up (Redis not
 * answering yet) is honoured too.
 */
export async function runUntilSignal(
  config: Config,
  role: BotRole,
  deadlineMs = SHUTDOWN_DEADLINE_MS,
): Promise<number> {
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => resolve(signal);
  });
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  const starting = startBot(config, {
    role,
    workerProcess: role === "start",
    metricsPort: role === "worker" ? config.metricsPort : undefined,
  });
  const first = await Promise.race([
    starting.then((bot) => ({ bot })),
    signalled.then((signal) => ({ signal })),
  ]);
  const deadline = (log: Pick<Logger, "error">) =>
    new Promise<number>((resolve) => {
      setTimeout(() => {
        log.error({ deadlineMs }, "shutdown did not finish within the deadline, exiting");
        resolve(1);
      }, deadlineMs).unref();
    });
  if (!("bot" in first)) {
    // Stopped before start-up finished: whatever started is stopped, within the deadline.
    const log = createLogger(config);
    log.info({ signal: first.signal }, "shutting down during start-up");
    const stopped = starting.then(
      (bot) => bot.stop().then(() => 0),
      () => 1,
    );
    return Promise.race([stopped, deadline(log)]).finally(() => detach(onSignal));
  }
  const { bot } = first;
  bot.log.info({ config: redactConfig(config) }, "started");
  const signal = await signalled;
  bot.log.info({ signal }, "shutting down");
  const stopped = bot.stop().then(
    () => 0,
    (error: unknown) => {
      bot.log.error({ err: (error as Error).message }, "shutdown failed");
      return 1;
    },
  );
  return Promise.race([stopped, deadline(bot.log)]).finally(() => detach(onSignal));
}

function detach(listener: (signal: NodeJS.Signals) => void): void {
  process.off("SIGTERM", listener);
  process.off("SIGINT", listener);
}
