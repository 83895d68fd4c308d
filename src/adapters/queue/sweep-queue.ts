// The sweep's two BullMQ queues. `sweep` carries the few control jobs (start, finish, an audit
// asked for from the digest) and the job scheduler that starts the weekly sweep; `sweep-catalog`
// carries one job per catalog round trip (a listing page or a table), and its workers share
// BullMQ's limiter so that all of them together stay under the catalog's requests per second.

import { createHash } from "node:crypto";
import type { ConnectionOptions, Queue } from "bullmq";
import { z } from "zod";
import type { SweepControlJob, SweepQueuePort, SweepTask } from "../../services/sweep/ports.js";
import { taskId } from "../../services/sweep/service.js";
import { createQueue, DEFAULT_PREFIX } from "./queues.js";

const SCHEDULER_ID = "sweep-schedule";

/** What a worker checks a control job against before acting on it. */
export const SweepControlJobSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("start"),
    trigger: z.enum(["schedule", "command"]),
    requestedBy: z.string().optional(),
    channel: z.string().optional(),
  }),
  z.object({ kind: z.literal("finish"), sweepId: z.string() }),
  z.object({
    kind: z.literal("audit"),
    table: z.string(),
    channel: z.string(),
    threadTs: z.string(),
    user: z.string(),
  }),
  z.object({ kind: z.literal("fix"), table: z.string(), channel: z.string(), user: z.string() }),
]) satisfies z.ZodType<SweepControlJob>;

const page = {
  pageToken: z.string().optional(),
  page: z.number().int().optional(),
  catalog: z.string().optional(),
};
/** What a worker checks a catalog task against before acting on it. */
export const SweepTaskSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("namespaces"),
    sweepId: z.string(),
    parent: z.array(z.string()).optional(),
    ...page,
  }),
  z.object({ kind: z.literal("tables"), sweepId: z.string(), namespace: z.array(z.string()), ...page }),
  z.object({
    kind: z.literal("table"),
    sweepId: z.string(),
    table: z.string(),
    catalog: z.string().optional(),
  }),
]) satisfies z.ZodType<SweepTask>;

export interface SweepQueueNames {
  control: string;
  catalog: string;
}

export interface SweepQueueOptions {
  connection: ConnectionOptions;
  prefix?: string;
  /** Default: `sweep` and `sweep-catalog`; tests give each run its own. */
  names?: Partial<SweepQueueNames>;
  backoffMs?: number;
}

export interface SweepQueues extends SweepQueuePort {
  names: SweepQueueNames;
  control: Queue<SweepControlJob>;
  catalog: Queue<SweepTask>;
  /** Starts a sweep now (one per request id; a running sweep is not doubled). */
  requestSweep(request: { requestId: string; channel: string; user: string }): Promise<void>;
  requestAudit(request: {
    requestId: string;
    table: string;
    channel: string;
    threadTs: string;
    user: string;
  }): Promise<void>;
  requestFix(request: { requestId: string; table: string; channel: string; user: string }): Promise<void>;
  /** Creates or updates the schedule (same id from every process: one schedule); "" removes it. */
  schedule(pattern: string): Promise<void>;
  close(): Promise<void>;
  obliterate(): Promise<void>;
}

function defaultSweepNames(names: Partial<SweepQueueNames> = {}): SweepQueueNames {
  return { control: names.control ?? "sweep", catalog: names.catalog ?? "sweep-catalog" };
}

function idOf(text: string): string {
  return createHash("sha1").update(text).digest("base64url").slice(0, 20);
}

export function createSweepQueues(options: SweepQueueOptions): SweepQueues {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const names = defaultSweepNames(options.names);
  const common = { connection: options.connection, prefix, backoffMs: options.backoffMs };
  const control = createQueue<SweepControlJob>(names.control, { attempts: 5, keepDone: 1000 }, common);
  // Table jobs go away once done: what a table leaves behind is its result, not its job. Nobody
  // listens to this queue's event stream; a short one keeps Redis small during a sweep.
  const catalog = createQueue<SweepTask>(
    names.catalog,
    { attempts: 3, keepDone: 0, eventsMaxLen: 500 },
    common,
  );
  return {
    names,
    control,
    catalog,
    async addTasks(tasks) {
      for (let i = 0; i < tasks.length; i += 500) {
        const batch = tasks.slice(i, i + 500);
        await catalog.addBulk(
          batch.map((task) => ({ name: task.kind, data: task, opts: { jobId: taskId(task) } })),
        );
      }
    },
    async addFinish(sweepId) {
      await control.add("finish", { kind: "finish", sweepId }, { jobId: `finish-${sweepId}` });
    },
    async requestSweep(request) {
      await control.add(
        "start",
        { kind: "start", trigger: "command", requestedBy: request.user, channel: request.channel },
        { jobId: `start-cmd-${idOf(request.requestId)}` },
      );
    },
    async requestAudit(request) {
      const { requestId, ...data } = request;
      await control.add("audit", { kind: "audit", ...data }, { jobId: `audit-${idOf(requestId)}` });
    },
    async requestFix(request) {
      const { requestId, ...data } = request;
      await control.add("fix", { kind: "fix", ...data }, { jobId: `fix-${idOf(requestId)}` });
    },
    async schedule(pattern) {
      if (pattern === "") {
        await control.removeJobScheduler(SCHEDULER_ID);
        return;
      }
      await control.upsertJobScheduler(
        SCHEDULER_ID,
        { pattern, tz: "UTC" },
        { name: "start", data: { kind: "start", trigger: "schedule" } },
      );
    },
    async close() {
      await Promise.all([control.close(), catalog.close()]);
    },
    async obliterate() {
      await control.removeJobScheduler(SCHEDULER_ID).catch(() => false);
      await Promise.all([control.obliterate({ force: true }), catalog.obliterate({ force: true })]);
    },
  };
}

/**
 * `perSecond` as a budget per window, for BullMQ's limiter and the shared rate windows: below one
 * per second the window grows so that it still allows one.
 */
export function catalogLimiter(perSecond: number): { max: number; duration: number } {
  return perSecond >= 1
    ? { max: Math.floor(perSecond), duration: 1000 }
    : { max: 1, duration: Math.ceil(1000 / perSecond) };
}
