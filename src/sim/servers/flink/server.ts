// Flink JobManager REST routes for the simulated jobs: overview, details, checkpoints, exceptions,
// vertex metrics (bare JSON arrays, as the real server writes them) and back pressure.

import type { SimClock } from "../../clock.js";
import type { SimJob, World } from "../../model/world.js";
import { json, type SimRequest, type SimResponse } from "../http.js";
import { checkpointConfig, checkpointCounts, checkpointStatistics } from "./checkpoints.js";
import { exceptionHistory } from "./exceptions.js";
import { jobVertices, metricValue, type SimVertex, vertexMetricNames } from "./model.js";

export function flinkErrorBody(status: number): string {
  const text: Record<number, string> = {
    404: "Not found.",
    500: "Internal server error.",
    503: "Service temporarily unavailable due to an ongoing leader election. Please refresh.",
  };
  return JSON.stringify({ errors: [text[status] ?? `Request failed with HTTP ${status}.`] });
}

const TASK_STATES = [
  "CREATED",
  "SCHEDULED",
  "DEPLOYING",
  "RUNNING",
  "FINISHED",
  "CANCELING",
  "CANCELED",
  "FAILED",
  "RECONCILING",
  "INITIALIZING",
];

function taskCounts(running: number, state: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of TASK_STATES) out[s] = 0;
  out[state === "RUNNING" ? "RUNNING" : state === "FAILED" ? "FAILED" : "SCHEDULED"] = running;
  return out;
}

export function createFlinkRouter(world: World, clock: SimClock): (req: SimRequest) => SimResponse {
  const notFound = (what: string) =>
    json(404, { errors: [`org.apache.flink.runtime.rest.NotFoundException: ${what}`] });

  function overview(job: SimJob, now: number) {
    const vertices = jobVertices(job);
    const total = vertices.reduce((n, v) => n + v.parallelism, 0);
    return {
      jid: job.scenario.id,
      name: job.scenario.name,
      state: job.state,
      "start-time": job.startedMs,
      "end-time": -1,
      duration: now - job.startedMs,
      "last-modification": job.startedMs + 100,
      tasks: {
        running: job.state === "RUNNING" ? total : 0,
        canceling: 0,
        canceled: 0,
        total,
        created: 0,
        scheduled: job.state === "RUNNING" ? 0 : total,
        deploying: 0,
        reconciling: 0,
        finished: 0,
        initializing: 0,
        failed: 0,
      },
      "pending-operators": 0,
    };
  }

  function details(job: SimJob, now: number) {
    const vertices = jobVertices(job);
    const total = vertices.reduce((n, v) => n + v.parallelism, 0);
    const timestamps: Record<string, number> = {};
    for (const s of [
      "INITIALIZING",
      "CREATED",
      "RUNNING",
      "FAILING",
      "FAILED",
      "CANCELLING",
      "CANCELED",
      "FINISHED",
      "RESTARTING",
      "SUSPENDED",
      "RECONCILING",
    ])
      timestamps[s] = 0;
    timestamps.INITIALIZING = job.startedMs - 250;
    timestamps.CREATED = job.startedMs - 200;
    timestamps.RUNNING = job.startedMs;
    return {
      jid: job.scenario.id,
      name: job.scenario.name,
      isStoppable: false,
      state: job.state,
      "job-type": "STREAMING",
      "start-time": job.startedMs,
      "end-time": -1,
      duration: now - job.startedMs,
      maxParallelism: -1,
      now,
      timestamps,
      vertices: vertices.map((v) => ({
        id: v.id,
        name: v.name,
        maxParallelism: 128,
        parallelism: v.parallelism,
        status: job.state === "RUNNING" ? "RUNNING" : "SCHEDULED",
        "start-time": job.startedMs + 300,
        "end-time": -1,
        duration: now - job.startedMs - 300,
        tasks: taskCounts(v.parallelism, job.state),
        metrics: {
          "read-bytes": v.role === "source" ? 0 : 5_000_000,
          "read-bytes-complete": true,
          "write-bytes": v.role === "committer" ? 0 : 5_000_000,
          "write-bytes-complete": true,
          "read-records": v.role === "source" ? 0 : 160_000,
          "read-records-complete": true,
          "write-records": v.role === "committer" ? 0 : 160_000,
          "write-records-complete": true,
          "accumulated-backpressured-time": 0,
          "accumulated-idle-time": 0,
          "accumulated-busy-time": 0,
        },
      })),
      "status-counts": taskCounts(total, job.state),
      plan: {
        jid: job.scenario.id,
        name: job.scenario.name,
        type: "STREAMING",
        nodes: vertices.map((v, i) => ({
          id: v.id,
          parallelism: v.parallelism,
          operator: "",
          operator_strategy: "",
          description: v.name,
          ...(i > 0
            ? {
                inputs: [
                  {
                    num: 0,
                    id: (vertices[i - 1] as SimVertex).id,
                    ship_strategy: v.role === "committer" ? "REBALANCE" : "FORWARD",
                    exchange: "pipelined_bounded",
                  },
                ],
              }
            : {}),
          optimizer_properties: {},
        })),
      },
    };
  }

  function metricsList(
    req: SimRequest,
    job: SimJob,
    v: SimVertex,
    aggregated: boolean,
    now: number,
  ): SimResponse {
    const names = vertexMetricNames(job, v);
    const get = req.query.get("get");
    if (!aggregated) {
      const ids: string[] = [];
      for (let s = 0; s < v.parallelism; s++) for (const n of names) ids.push(`${s}.${n}`);
      if (get === null)
        return json(
          200,
          ids.map((id) => ({ id })),
        );
      const wanted = get.split(",").filter((id) => ids.includes(id));
      return json(
        200,
        wanted.map((id) => ({
          id,
          value: String(metricValue(world, job, v, id.slice(id.indexOf(".") + 1), now)),
        })),
      );
    }
    if (get === null)
      return json(
        200,
        names.map((id) => ({ id })),
      );
    const aggs = (req.query.get("agg") ?? "min,max,avg,sum").split(",");
    const wanted = get.split(",").filter((id) => names.includes(id));
    return json(
      200,
      wanted.map((id) => {
        const values: number[] = [];
        for (let s = 0; s < v.parallelism; s++) values.push(metricValue(world, job, v, id, now));
        const sum = values.reduce((a, b) => a + b, 0);
        const out: Record<string, unknown> = { id };
        if (aggs.includes("min")) out.min = Math.min(...values);
        if (aggs.includes("max")) out.max = Math.max(...values);
        if (aggs.includes("avg")) out.avg = sum / values.length;
        if (aggs.includes("sum")) out.sum = sum;
        if (aggs.includes("skew")) out.skew = 0;
        return out;
      }),
    );
  }

  function jobMetrics(req: SimRequest, job: SimJob, now: number): SimResponse {
    const counts = checkpointCounts(job, now);
    const values: Record<string, number> = {
      numRestarts: job.scenario.exceptions.length,
      uptime: now - job.startedMs,
      lastCheckpointDuration: job.scenario.checkpoints.endToEndDurationMs,
      lastCheckpointSize: 180_000_000,
      numberOfCompletedCheckpoints: counts.completed,
      numberOfFailedCheckpoints: counts.failed,
      numberOfInProgressCheckpoints: counts.inProgress,
      totalNumberOfCheckpoints: counts.completed + counts.failed + counts.inProgress,
    };
    const get = req.query.get("get");
    if (get === null)
      return json(
        200,
        Object.keys(values).map((id) => ({ id })),
      );
    return json(
      200,
      get
        .split(",")
        .filter((id) => id in values)
        .map((id) => ({ id, value: String(values[id]) })),
    );
  }

  function backpressure(job: SimJob, v: SimVertex, now: number) {
    const level = v.role === "committer" ? "ok" : job.scenario.backpressure;
    const ratio = { ok: 0, low: 0.3, high: 0.85 }[level];
    return {
      status: "ok",
      backpressureLevel: level,
      "end-timestamp": now,
      subtasks: Array.from({ length: v.parallelism }, (_, subtask) => ({
        subtask,
        "attempt-number": 0,
        backpressureLevel: level,
        ratio,
        idleRatio: Math.max(0, 1 - ratio - 0.12),
        busyRatio: 0.12,
      })),
    };
  }

  return (req) => {
    const now = clock.now();
    const path = req.pathname.replace(/^\/v1(?=\/)/, "").replace(/\/$/, "");
    const seg = path.split("/").slice(1);
    if (req.method !== "GET")
      return json(405, { errors: [`Request method ${req.method} not allowed for ${path}.`] });
    if (path === "/jobs") {
      return json(200, {
        jobs: [...world.jobs.values()].map((j) => ({ id: j.scenario.id, status: j.state })),
      });
    }
    if (path === "/jobs/overview") {
      return json(200, { jobs: [...world.jobs.values()].map((j) => overview(j, now)) });
    }
    if (path === "/overview") {
      const jobs = [...world.jobs.values()];
      return json(200, {
        taskmanagers: 2,
        "slots-total": 8,
        "slots-available": 2,
        "jobs-running": jobs.filter((j) => j.state === "RUNNING").length,
        "jobs-finished": 0,
        "jobs-cancelled": 0,
        "jobs-failed": 0,
        "flink-version": "1.20.1",
        "flink-commit": "e0b0c7f",
      });
    }
    if (seg[0] !== "jobs" || !seg[1]) return json(404, { errors: [`Not found: ${path}`] });
    const job = world.jobs.get(seg[1]);
    if (!job) return notFound(`Job ${seg[1]} not found`);
    const rest = seg.slice(2).join("/");
    if (rest === "") return json(200, details(job, now));
    if (rest === "checkpoints") return json(200, checkpointStatistics(world, job, now));
    if (rest === "checkpoints/config") return json(200, checkpointConfig(job));
    if (rest === "exceptions") return json(200, exceptionHistory(world, job, req));
    if (rest === "metrics") return jobMetrics(req, job, now);
    if (seg[2] === "vertices" && seg[3]) {
      const v = jobVertices(job).find((x) => x.id === seg[3]);
      if (!v) return notFound(`Vertex ${seg[3]} not found in job ${job.scenario.id}`);
      const tail = seg.slice(4).join("/");
      if (tail === "metrics") return metricsList(req, job, v, false, now);
      if (tail === "subtasks/metrics") return metricsList(req, job, v, true, now);
      if (tail === "backpressure") return json(200, backpressure(job, v, now));
    }
    return json(404, { errors: [`Not found: ${path}`] });
  };
}
