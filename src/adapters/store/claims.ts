// Cross-process "do it once" guards. A message is posted by whoever claims it first (SET NX);
// the claim holds the job id so a retry of the same job may post again when the first try
// died before storing the message ts.

import type { ClaimOutcome } from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";
import type { Keys } from "./keys.js";

const DAY_SECONDS = 86_400;
/** Longer than a Sentinel or Cluster failover takes to elect a new primary. */
const COMPLETE_RETRY_MS = 30_000;

export type { ClaimOutcome } from "../../services/ports.js";

export class Claims {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly now: () => number = Date.now,
  ) {}

  async claim(incidentId: string, message: string, owner: string): Promise<ClaimOutcome> {
    const key = this.keys.claim(incidentId, message);
    const set = await this.redis.set(key, `pending|${owner}`, "EX", 30 * DAY_SECONDS, "NX");
    if (set === "OK") return { kind: "mine" };
    const value = (await this.redis.get(key)) ?? "";
    const [state, rest] = splitOnce(value);
    if (state === "done") return { kind: "done", ts: rest };
    if (rest === owner) return { kind: "mine", again: true };
    return { kind: "held-by-other", owner: rest };
  }

  /**
   * Records the posted message. It is already in Slack, so failing here would post it again on
   * the job's retry: keep trying through a Redis failover (a few seconds) before giving up.
   */
  async complete(incidentId: string, message: string, ts: string): Promise<void> {
    const deadline = this.now() + COMPLETE_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.redis.set(this.keys.claim(incidentId, message), `done|${ts}`, "EX", 30 * DAY_SECONDS);
        return;
      } catch (error) {
        if (this.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * attempt, 1000)));
      }
    }
  }

  /** Lets another job take the message over (the post failed and nothing reached Slack). */
  async release(incidentId: string, message: string, owner: string): Promise<void> {
    const key = this.keys.claim(incidentId, message);
    if ((await this.redis.get(key)) === `pending|${owner}`) await this.redis.del(key);
  }

  async messageTs(incidentId: string, message: string): Promise<string | undefined> {
    const [state, rest] = splitOnce((await this.redis.get(this.keys.claim(incidentId, message))) ?? "");
    return state === "done" ? rest : undefined;
  }

  /** True the first time a key is seen within the window (Slack event retries, duplicate alerts). */
  async firstTime(scope: string, key: string, ttlSeconds: number): Promise<boolean> {
    const set = await this.redis.set(this.keys.seen(scope, key), "1", "EX", ttlSeconds, "NX");
    return set === "OK";
  }

  async forget(scope: string, key: string): Promise<void> {
    await this.redis.del(this.keys.seen(scope, key));
  }
}

function splitOnce(value: string): [string, string] {
  const at = value.indexOf("|");
  return at < 0 ? [value, ""] : [value.slice(0, at), value.slice(at + 1)];
}
