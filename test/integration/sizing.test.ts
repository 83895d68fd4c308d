// docs/operations.md (Sizing) gives what Redis keeps per incident and per table, from
// bench/incident-memory.ts: the largest of its walked scenarios, measured here the same way
// (MEMORY USAGE, a byte count rather than a time), must fit those figures, and come near them, so
// the guide is neither short nor padded.

import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createKeys } from "../../src/adapters/store/keys.js";
import { runDemo } from "../../src/cli/demo.js";
import { REDIS_URL } from "../support/redis.js";
import { type Footprint, footprint } from "../support/redis-footprint.js";

const guide = readFileSync("docs/operations.md", "utf8").replace(/\s+/g, " ");
const documented = (unit: string) => {
  const found = new RegExp(`up to ([\\d.]+) KB per ${unit}`).exec(guide)?.[1];
  expect(found, `"up to N KB per ${unit}" in docs/operations.md`).toBeDefined();
  return Number(found) * 1024;
};

describe("Redis sizing in docs/operations.md", () => {
  it("covers a walked incident and its table, within a fifth of what is measured", async () => {
    let measured: Footprint | undefined;
    const code = await runDemo({
      // The largest incident of the benchmark's scenarios.
      scenario: "competing-appends",
      stdout: { write: () => true },
      env: { REDIS_URL },
      followUpIntervalMs: 150,
      onEnd: async (end) => {
        const redis = new Redis(end.redisUrl);
        try {
          const keys = createKeys(end.namespace);
          const [id] = await redis.zrange(keys.closed(), 0, 0);
          expect(id, "the walked incident, closed").toBeDefined();
          measured = await footprint(redis, keys, end.namespace, id as string);
        } finally {
          redis.disconnect();
        }
      },
    });
    expect(code).toBe(0);
    const { incident, audit, history, jobs } = measured as Footprint;
    const perIncident = documented("incident");
    expect(incident).toBeLessThanOrEqual(perIncident);
    expect(incident).toBeGreaterThan(perIncident * 0.8);
    const perTable = documented("table");
    expect(audit + history).toBeLessThanOrEqual(perTable);
    expect(audit + history).toBeGreaterThan(perTable * 0.8);
    // What an incident leaves for a day beside its own keys: its finished jobs. The benchmark's
    // largest (validation-conflict) queues more of them than this scenario.
    const found = /up to ([\d.]+) KB of finished jobs per incident/.exec(guide)?.[1];
    expect(found, '"up to N KB of finished jobs per incident" in docs/operations.md').toBeDefined();
    const perIncidentJobs = Number(found) * 1024;
    expect(jobs).toBeLessThanOrEqual(perIncidentJobs);
    expect(jobs).toBeGreaterThan(perIncidentJobs * 0.6);
  });
});
