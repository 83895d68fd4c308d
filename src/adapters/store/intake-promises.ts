// The intake promises' sorted set (services/intake-promises.ts says what they are): members written
// by the incident store's intake script, "open|<incident>" or "card|<incident>|<card version>",
// scored by the wall-clock time they were made, so the keeper finds those left too long.

import type { IntakePromise } from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";

/** Promises made at or before `madeBy` (wall clock), oldest first. */
export async function duePromises(
  redis: RedisClient,
  key: string,
  madeBy: number,
  limit: number,
): Promise<IntakePromise[]> {
  const members = await redis.zrangebyscore(key, "-inf", madeBy, "LIMIT", 0, limit);
  return members.flatMap((member) => {
    const entry = intakePromise(member);
    return entry ? [entry] : [];
  });
}

/** Removes promises whose work is queued. */
export async function promisesKept(
  redis: RedisClient,
  key: string,
  entries: readonly IntakePromise[],
): Promise<void> {
  if (entries.length === 0) return;
  await redis.zrem(key, ...entries.map((e) => e.member));
}

/** Turns a member written by the intake script back into the promise it stands for. */
function intakePromise(member: string): IntakePromise | undefined {
  const [kind, incidentId, version] = member.split("|");
  if (kind === "open" && incidentId) return { kind, incidentId, member };
  if (kind === "card" && incidentId && version) return { kind, incidentId, version: Number(version), member };
  return undefined;
}
