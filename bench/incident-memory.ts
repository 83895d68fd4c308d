// Redis bytes per incident: whole incidents walked by the demo (alert, diagnosis with its report
// and commit timeline, approval, apply, follow-up checks, resolved), then MEMORY USAGE over the
// keys that belong to the incident (incidentKeys) plus its fields in shared hashes. This is what
// retention.resolvedDays keeps per resolved incident. Every other key the demo's namespace holds
// is measured too, by what it is: the table's audit trail (kept for retention.auditDays) and
// incident history (kept as long as its incidents), and what the incident leaves beside its own
// keys: its finished BullMQ jobs (kept a day), what expires within the hour (replay guards), and
// what the deployment keeps whatever the number of incidents (queues, capped streams, the outbox).
// docs/operations.md (Sizing) quotes these numbers.

import { Redis } from "ioredis";
import { createKeys } from "../src/adapters/store/keys.js";
import { runDemo } from "../src/cli/demo.js";
import { footprint, incidentFootprint } from "../test/support/redis-footprint.js";
import { REDIS_URL } from "./_bot-setup.js";

const SCENARIOS = [
  "competing-appends",
  "commit-failing",
  "connect-coordinator-stopped",
  "validation-conflict",
];

export async function run(): Promise<Record<string, number | string>> {
  const result: Record<string, number | string> = {};
  const sizes: number[] = [];
  for (const scenario of SCENARIOS) {
    let measured:
      | {
          bytes: number;
          keys: number;
          audit: number;
          history: number;
          jobs: number;
          expiring: number;
          beside: number;
        }
      | undefined;
    const code = await runDemo({
      scenario,
      stdout: { write: () => true },
      env: { REDIS_URL },
      followUpIntervalMs: 150,
      onEnd: async (end) => {
        const redis = new Redis(end.redisUrl);
        try {
          const keys = createKeys(end.namespace);
          const [id] = await redis.zrange(keys.closed(), 0, 0);
          const openId = id ?? (await redis.zrange(keys.openSet(), 0, 0))[0];
          if (!openId) return;
          const { keys: count } = await incidentFootprint(redis, keys, openId);
          const found = await footprint(redis, keys, end.namespace, openId);
          measured = { ...found, bytes: found.incident, keys: count };
        } finally {
          redis.disconnect();
        }
      },
    });
    if (code !== 0 || !measured) {
      result[`${scenario}: demo`] = `exit ${code}`;
      continue;
    }
    sizes.push(measured.bytes);
    result[`${scenario}: incident bytes`] = measured.bytes;
    result[`${scenario}: incident keys`] = measured.keys;
    result[`${scenario}: table audit trail bytes`] = measured.audit;
    result[`${scenario}: table history bytes`] = measured.history;
    result[`${scenario}: finished job bytes (kept a day)`] = measured.jobs;
    result[`${scenario}: expiring bytes (guards, within the hour)`] = measured.expiring;
    result[`${scenario}: other namespace bytes (queues, streams, outbox)`] = measured.beside;
  }
  if (sizes.length > 0) {
    result["bytes per incident (max)"] = Math.max(...sizes);
    result["bytes per incident (mean)"] = Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length);
  }
  return result;
}
