// Kafka Connect worker REST routes for the simulated connectors: status, config (read and
// replace), restart with includeTasks/onlyFailed, and the worker's error bodies.

import type { SimClock } from "../clock.js";
import type { SimConnector, World } from "../model/world.js";
import { json, type SimRequest, type SimResponse } from "./http.js";

const CONNECT_REBALANCE_MESSAGE =
  "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)";

export function connectErrorBody(status: number): string {
  const messages: Record<number, string> = {
    404: "Connector not found",
    409: CONNECT_REBALANCE_MESSAGE,
    500: "Request timed out",
  };
  return JSON.stringify({
    error_code: status,
    message: messages[status] ?? `Request failed with HTTP ${status}`,
  });
}

function connectorType(c: SimConnector): string {
  const cls = c.config["connector.class"] ?? "";
  return /sink/i.test(cls) ? "sink" : /source/i.test(cls) ? "source" : "unknown";
}

function status(c: SimConnector, restarting?: { connector: boolean; tasks: number[] }) {
  return {
    name: c.name,
    connector: {
      state: restarting?.connector ? "RESTARTING" : c.state,
      worker_id: c.workerId,
      ...(c.trace && !restarting?.connector ? { trace: c.trace } : {}),
    },
    tasks: c.tasks.map((t) => ({
      id: t.id,
      state: restarting?.tasks.includes(t.id) ? "RESTARTING" : t.state,
      worker_id: t.workerId,
      ...(t.trace && !restarting?.tasks.includes(t.id) ? { trace: t.trace } : {}),
    })),
    type: connectorType(c),
  };
}

function info(c: SimConnector) {
  return {
    name: c.name,
    config: { ...c.config },
    tasks: c.tasks.map((t) => ({ connector: c.name, task: t.id })),
    type: connectorType(c),
  };
}

export function createConnectRouter(world: World, clock: SimClock): (req: SimRequest) => SimResponse {
  const connect = world.scenario.connect;
  const notFound = (name: string) => json(404, { error_code: 404, message: `Connector ${name} not found` });

  function putConfig(c: SimConnector, body: string): SimResponse {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return json(500, {
        error_code: 500,
        message:
          "Cannot deserialize value of type `java.util.HashMap<java.lang.String,java.lang.String>` from the request body",
      });
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return json(400, {
        error_code: 400,
        message: "Connector configuration must be a JSON object of strings",
      });
    }
    const config: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) {
      if (typeof v !== "string") {
        return json(400, {
          error_code: 400,
          message: `Connector configuration value for ${k} must be a string`,
        });
      }
      config[k] = v;
    }
    if (config.name !== undefined && config.name !== c.name) {
      return json(400, {
        error_code: 400,
        message:
          "Connector name configuration (" +
          config.name +
          ") doesn't match connector name in the URL (" +
          c.name +
          ")",
      });
    }
    // PUT replaces the whole config; merging is the caller's job.
    for (const k of Object.keys(c.config)) delete c.config[k];
    Object.assign(c.config, config, { name: c.name });
    world.sync(clock.now());
    return json(200, info(c));
  }

  return (req) => {
    const seg = req.pathname.split("/").slice(1).map(decodeURIComponent);
    if (req.pathname === "/" && req.method === "GET") {
      return json(200, {
        version: connect?.version ?? "3.9.1",
        commit: "e2a1c5f0d8c43d9b",
        kafka_cluster_id: "q0Vp3Nn5TgC2sEa1kDLBbw",
      });
    }
    if (req.pathname === "/connector-plugins" && req.method === "GET") {
      return json(200, [
        {
          class: "org.apache.iceberg.connect.IcebergSinkConnector",
          type: "sink",
          version: connect?.sinkVersion ?? "1.11.0",
        },
        {
          class: "org.apache.kafka.connect.mirror.MirrorSourceConnector",
          type: "source",
          version: connect?.version ?? "3.9.1",
        },
      ]);
    }
    if (seg[0] !== "connectors") return json(404, { error_code: 404, message: "HTTP 404 Not Found" });
    if (seg.length === 1 && req.method === "GET") {
      const expand = req.query.getAll("expand");
      const all = [...world.connectors.values()];
      if (expand.length === 0)
        return json(
          200,
          all.map((c) => c.name),
        );
      const out: Record<string, Record<string, unknown>> = {};
      for (const c of all) {
        out[c.name] = {};
        if (expand.includes("status")) (out[c.name] as Record<string, unknown>).status = status(c);
        if (expand.includes("info")) (out[c.name] as Record<string, unknown>).info = info(c);
      }
      return json(200, out);
    }
    const c = world.connectors.get(seg[1] ?? "");
    if (!c) return notFound(seg[1] ?? "");
    const tail = seg.slice(2).join("/");
    const route = `${req.method} ${tail}`;
    switch (route) {
      case "GET ":
        return json(200, info(c));
      case "GET status":
        return json(200, status(c));
      case "GET config":
        return json(200, { ...c.config });
      case "PUT config":
        return putConfig(c, req.body);
      case "GET tasks":
        return json(
          200,
          c.tasks.map((t) => ({ id: { connector: c.name, task: t.id }, config: { ...c.config } })),
        );
      case "POST restart": {
        const includeTasks = req.query.get("includeTasks") === "true";
        const onlyFailed = req.query.get("onlyFailed") === "true";
        const outcome = world.restartConnector(c, includeTasks, onlyFailed, clock.now());
        if (!includeTasks && !onlyFailed) return { status: 204 };
        return json(202, status(c, outcome));
      }
      default: {
        const taskRestart = /^POST tasks\/(\d+)\/restart$/.exec(route);
        if (taskRestart) {
          const id = Number(taskRestart[1]);
          if (!c.tasks.some((t) => t.id === id)) {
            return json(404, { error_code: 404, message: `Task ${c.name}-${id} not found` });
          }
          world.restartTask(c, id, clock.now());
          return { status: 204 };
        }
        return json(404, { error_code: 404, message: `HTTP 404 Not Found` });
      }
    }
  };
}
