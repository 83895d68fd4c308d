// What people said and did in an incident's thread, durable next to the incident: their replies
// (the postmortem's timeline) and who said "I'm on it". Bounded: at most MAX_REMARKS replies per
// incident, each cut to MAX_REMARK_CHARS; a reply is kept once by its Slack ts, so an edit storm
// or a redelivered event never multiplies it.

import type { StoryRemark } from "../../core/story/model.js";
import type { Claim } from "../../core/story/owner.js";
import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import type { Keys } from "./keys.js";

const MAX_REMARKS = 200;
const MAX_REMARK_CHARS = 2_000;

export class PeopleStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Pick<Keys, "remarks" | "claim">,
  ) {}

  /** Keeps a reply; false when it was kept already or the incident has its fill of them. */
  async addRemark(incidentId: string, ts: string, remark: StoryRemark): Promise<boolean> {
    const entry: StoryRemark = { ...remark, text: cut(remark.text) };
    const added = await runScript(
      this.redis,
      "remark-add",
      [this.keys.remarks(incidentId)],
      [ts, JSON.stringify(entry), String(MAX_REMARKS)],
    );
    return Number(added) === 1;
  }

  async remarks(incidentId: string): Promise<StoryRemark[]> {
    const all = await this.redis.hvals(this.keys.remarks(incidentId));
    return all
      .flatMap((raw): StoryRemark[] => {
        try {
          const r = JSON.parse(raw) as Partial<StoryRemark>;
          return typeof r.atMs === "number" && typeof r.user === "string" && typeof r.text === "string"
            ? [{ atMs: r.atMs, user: r.user, text: r.text }]
            : [];
        } catch {
          return [];
        }
      })
      .sort((a, b) => a.atMs - b.atMs);
  }

  /** Records "I'm on it"; the first person to claim the incident keeps it. True when this one did. */
  async claimFor(incidentId: string, user: string, atMs: number): Promise<boolean> {
    const set = await this.redis.set(this.keys.claim(incidentId), JSON.stringify({ user, atMs }), "NX");
    return set === "OK";
  }

  async claim(incidentId: string): Promise<Claim | undefined> {
    const raw = await this.redis.get(this.keys.claim(incidentId));
    if (raw === null) return undefined;
    try {
      const c = JSON.parse(raw) as Partial<Claim>;
      return typeof c.user === "string" && typeof c.atMs === "number"
        ? { user: c.user, atMs: c.atMs }
        : undefined;
    } catch {
      return undefined;
    }
  }
}

function cut(text: string): string {
  return text.length <= MAX_REMARK_CHARS ? text : `${text.slice(0, MAX_REMARK_CHARS - 1)}…`;
}
