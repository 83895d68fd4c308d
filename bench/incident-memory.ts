// Redis bytes per incident: whole incidents walked by the demo (alert, diagnosis with its report
// and commit timeline, approval, apply, follow-up checks, resolved), then MEMORY USAGE over the
// keys that belong to the incident (incidentKeys) plus its fields in shared hashes. This is what
// retention.resolvedDays keeps per resolved incident; the table's audit trail is measured apart
// (kept for retention.auditDays). docs/operations.md (Sizing) quotes these numbers.

import { Redis } from "ioredis";
import { createKeys } from "../src/adapters/store/keys.js";
import { incidentFootprint } from "../src/adapters/store/retention.js";
import { runDemo } from "../src/cli/demo.js";
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
    let measured: { bytes: number; keys: number; audit: number } | undefined;
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
          const { bytes, keys: count } = await incidentFootprint(redis, keys, openId);
          const table = (await redis.hget(keys.incident(openId), "table")) ?? "";
          const audit = Number(
            (await redis.call("MEMORY", "USAGE", keys.tableAudit(table), "SAMPLES", "0")) ?? 0,
          );
          measured = { bytes, keys: count, audit };
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
  }
  if (sizes.length > 0) {
    result["bytes per incident (max)"] = Math.max(...sizes);
    result["bytes per incident (mean)"] = Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length);
  }
  return result;
}
