// `start` keeps the receiver's event loop for acks: the workers run in a child process that this
// supervisor forks, restarts when it dies (with a growing delay while it keeps dying), and stops
// on shutdown: it asks the child to drain its workers and waits for it to exit.

import { type ChildProcess, fork } from "node:child_process";
import { existsSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FailingSource } from "./adapters/evidence/source-watch.js";
import type { BackoffSettings } from "./adapters/slack/outbox/poster.js";
import type { Config } from "./config.js";
import type { LogLike } from "./services/incident/deps.js";

/** What a worker child needs: plain data only, sent over IPC (functions cannot cross). */
export interface WorkerChildOptions {
  namespace?: string;
  queuePrefix?: string;
  queueNames?: { diagnose?: string; slack?: string };
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  backoffMs?: number;
  concurrency?: { diagnose?: number; slack?: number };
  playbooksDir?: string;
  slackDelivery?: { timeoutMs?: number; backoff?: Partial<BackoffSettings>; leaseMs?: number };
  health?: { checkEveryMs?: number; authEveryMs?: number };
  /** How often the child tells its parent it is alive (default HEARTBEAT_EVERY_MS). */
  heartbeatEveryMs?: number;
}

/** The child's heartbeat: often enough that a stopped child shows in /readyz within seconds. */
export const HEARTBEAT_EVERY_MS = 1_000;

export type ParentMessage =
  | { type: "start"; config: Config; options: WorkerChildOptions }
  | { type: "stop" }
  | { type: "metrics"; id: number };
export type ChildMessage =
  | { type: "ready" }
  | { type: "failed"; message: string }
  /** The child's own counters and runtime metrics (registry.getMetricsAsJSON()), for one scrape. */
  | { type: "metrics"; id: number; metrics: unknown[] }
  /** Alive, with the evidence sources failing in the child (its diagnoses read them). */
  | { type: "heartbeat"; failingSources: FailingSource[] };

export type SupervisorEvent =
  | { kind: "started"; pid: number }
  | { kind: "ready"; pid: number }
  | { kind: "exited"; pid: number; code: number | null; signal: string | null; expected: boolean }
  | { kind: "restarting"; delayMs: number };

export interface WorkerSupervisorOptions {
  config: Config;
  child?: WorkerChildOptions;
  log: LogLike;
  /** First restart delay; doubled while the child keeps dying young, up to maxRestartDelayMs. */
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
  /** A child that ran this long is healthy again: the next restart starts from restartDelayMs. */
  healthyAfterMs?: number;
  /** How long a stop waits for the child to drain before killing it (default 12 s). */
  stopTimeoutMs?: number;
  /**
   * How much nicer than the parent the child runs (default 5): when the CPU is short, the
   * receiver's acks go before diagnoses. 0 keeps the parent's priority.
   */
  niceness?: number;
  onEvent?: (event: SupervisorEvent) => void;
  /**
   * Told whether the workers run: a reason while the child is dead, restarting, or silent longer
   * than heartbeatTimeoutMs (a stopped or wedged process), undefined once it answers again.
   */
  onHealth?: (problem: string | undefined) => void;
  /** Silence after which the child is reported not running (default 5 heartbeats). */
  heartbeatTimeoutMs?: number;
  /** Real time, for how long a child lived (default Date.now). */
  now?: () => number;
}

export interface WorkerSupervisor {
  /** The current child's pid, if one is running. */
  readonly pid: number | undefined;
  readonly restarts: number;
  /** Resolves when the first child has its workers running. */
  ready: Promise<void>;
  /** Asks the child to drain and exit (killed after stopTimeoutMs); no restart follows. */
  stop(): Promise<void>;
  /** The child's metrics as JSON (empty when no child answers). */
  metrics(): Promise<unknown[]>;
  /** The evidence sources failing in the child, as its latest heartbeat said. */
  failingSources(): FailingSource[];
}

/** The child's entry point: compiled next to this file, or the TypeScript source under tsx. */
function childEntry(): { path: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const ts = here.endsWith(".ts");
  const path = join(dirname(here), ts ? "worker-process.ts" : "worker-process.js");
  if (!existsSync(path)) throw new Error(`worker entry ${path} is missing; run npm run build`);
  return { path, execArgv: ts ? ["--import", "tsx"] : [] };
}

export function superviseWorker(options: WorkerSupervisorOptions): WorkerSupervisor {
  const entry = childEntry();
  const minDelay = options.restartDelayMs ?? 250;
  const now = options.now ?? Date.now;
  const maxDelay = options.maxRestartDelayMs ?? 10_000;
  const healthyAfter = options.healthyAfterMs ?? 30_000;
  const emit = options.onEvent ?? (() => {});
  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;
  let delay = minDelay;
  let restartTimer: NodeJS.Timeout | undefined;
  let resolveReady: () => void = () => {};
  let rejectReady: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  let firstReady = false;
  let metricsId = 0;
  const metricsWaiters = new Map<number, (metrics: unknown[]) => void>();
  const heartbeatTimeout =
    options.heartbeatTimeoutMs ?? 5 * (options.child?.heartbeatEveryMs ?? HEARTBEAT_EVERY_MS);
  let lastBeat: { at: number; pid: number } | undefined;
  let childSources: FailingSource[] = [];
  let problem: string | undefined;
  const report = (next: string | undefined) => {
    if (next === problem) return;
    problem = next;
    options.onHealth?.(next);
  };
  // A child that stops answering (SIGSTOP, a wedged event loop) keeps its pid and its sockets:
  // only its silence tells.
  const watchdog = setInterval(
    () => {
      if (stopping || !lastBeat || child?.pid !== lastBeat.pid) return;
      const silent = now() - lastBeat.at;
      if (silent > heartbeatTimeout)
        report(
          `the worker process (pid ${lastBeat.pid}) has not answered for ${Math.round(silent / 1000)} s`,
        );
    },
    Math.min(1_000, heartbeatTimeout),
  );
  watchdog.unref();

  const spawnChild = () => {
    const startedAt = now();
    const proc = fork(entry.path, [], {
      execArgv: entry.execArgv,
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child = proc;
    // However this process ends (a deadline's exit included), the child goes with it; a parent
    // killed outright closes the IPC channel, and the child stops itself on that.
    const killOnExit = () => proc.kill("SIGKILL");
    process.once("exit", killOnExit);
    proc.once("exit", () => process.off("exit", killOnExit));
    const pid = proc.pid ?? -1;
    const niceness = options.niceness ?? 5;
    try {
      if (pid > 0 && niceness !== 0) setPriority(pid, Math.min(19, getPriority() + niceness));
    } catch (error) {
      options.log.warn(
        { pid, err: (error as Error).message },
        "could not lower the worker process's priority",
      );
    }
    emit({ kind: "started", pid });
    proc.on("message", (message: ChildMessage) => {
      if (message.type === "heartbeat") {
        lastBeat = { at: now(), pid };
        childSources = message.failingSources;
        report(undefined);
      } else if (message.type === "ready") {
        lastBeat = { at: now(), pid };
        report(undefined);
        emit({ kind: "ready", pid });
        if (!firstReady) {
          firstReady = true;
          resolveReady();
        }
      } else if (message.type === "metrics") {
        metricsWaiters.get(message.id)?.(message.metrics);
        metricsWaiters.delete(message.id);
      } else if (message.type === "failed") {
        options.log.error({ pid, err: message.message }, "worker process failed to start");
        if (!firstReady) rejectReady(new Error(`worker process failed to start: ${message.message}`));
      }
    });
    proc.on("error", (error) => options.log.warn({ pid, err: error.message }, "worker process error"));
    proc.on("exit", (code, signal) => {
      if (child === proc) child = undefined;
      // A child that dies before answering a scrape leaves nothing to wait for.
      for (const resolve of metricsWaiters.values()) resolve([]);
      metricsWaiters.clear();
      emit({ kind: "exited", pid, code, signal, expected: stopping });
      if (stopping) return;
      if (!firstReady) return; // a child that never came up is reported through `ready`
      childSources = [];
      report(`the worker process (pid ${pid}) exited (${signal ?? `code ${code}`}); restarting it`);
      delay = now() - startedAt >= healthyAfter ? minDelay : delay;
      options.log.warn({ pid, code, signal, restartInMs: delay }, "worker process died; restarting it");
      emit({ kind: "restarting", delayMs: delay });
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (stopping) return;
        restarts++;
        spawnChild();
      }, delay);
      delay = Math.min(maxDelay, delay * 2);
    });
    proc.send({
      type: "start",
      config: options.config,
      options: options.child ?? {},
    } satisfies ParentMessage);
  };

  spawnChild();

  return {
    get pid() {
      return child?.pid;
    },
    get restarts() {
      return restarts;
    },
    ready,
    failingSources: () => childSources,
    metrics() {
      const proc = child;
      if (!proc?.connected) return Promise.resolve([]);
      const id = ++metricsId;
      return new Promise<unknown[]>((resolve) => {
        metricsWaiters.set(id, resolve);
        proc.send({ type: "metrics", id } satisfies ParentMessage, (error) => {
          if (error) {
            metricsWaiters.delete(id);
            resolve([]);
          }
        });
      });
    },
    async stop() {
      stopping = true;
      clearInterval(watchdog);
      if (restartTimer) clearTimeout(restartTimer);
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
      if (proc.connected) proc.send({ type: "stop" } satisfies ParentMessage);
      else proc.kill("SIGTERM");
      // Below the parent's own shutdown deadline (15 s), so the parent sees the child gone.
      const timer = setTimeout(() => proc.kill("SIGKILL"), options.stopTimeoutMs ?? 12_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
