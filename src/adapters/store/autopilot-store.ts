// The autopilot's shared state in Redis (services/autopilot/ports.ts). The switch is one key every
// decision reads, so `/iceberg autopilot off` holds in every process at once. A plan's claim is
// one SET NX: whichever of its firing or a person's Hold writes first wins in every process.

import type { Refusal, SwitchState } from "../../core/autopilot/decide.js";
import { STEP_IDS, type StepId } from "../../core/ids.js";
import type {
  AutopilotPlan,
  AutopilotStorePort,
  PlanClaim,
  ShadowTally,
} from "../../services/autopilot/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { DEFAULT_NAMESPACE } from "./keys.js";
import { DAY_MS } from "./retention.js";

/** Per-incident keys live as long as a closed incident's record at most. */
const INCIDENT_TTL_SECONDS = 400 * 86_400;

export class AutopilotStore implements AutopilotStorePort {
  private readonly p: string;

  constructor(
    private readonly redis: RedisClient,
    namespace: string = DEFAULT_NAMESPACE,
  ) {
    this.p = `{${namespace}}:autopilot`;
  }

  async switchState(): Promise<SwitchState> {
    const value = await this.redis.get(`${this.p}:switch`);
    return value === "off" || value === "self-stopped" ? value : "on";
  }

  async setSwitch(state: SwitchState): Promise<void> {
    await this.redis.set(`${this.p}:switch`, state);
  }

  /** Sets a per-incident key unless it is set: true for the one writer that set it. */
  private async once(key: string, value: string): Promise<boolean> {
    return (await this.redis.set(key, value, "EX", INCIDENT_TTL_SECONDS, "NX")) === "OK";
  }

  savePlan(plan: AutopilotPlan): Promise<boolean> {
    return this.once(`${this.p}:plan:${plan.incidentId}`, JSON.stringify(plan));
  }

  async plan(incidentId: string): Promise<AutopilotPlan | undefined> {
    const raw = await this.redis.get(`${this.p}:plan:${incidentId}`);
    return raw ? (JSON.parse(raw) as AutopilotPlan) : undefined;
  }

  async claim(incidentId: string, claim: PlanClaim): Promise<PlanClaim> {
    if (await this.once(`${this.p}:claim:${incidentId}`, JSON.stringify(claim))) return claim;
    return (await this.claimOf(incidentId)) ?? claim;
  }

  async claimOf(incidentId: string): Promise<PlanClaim | undefined> {
    const raw = await this.redis.get(`${this.p}:claim:${incidentId}`);
    return raw ? (JSON.parse(raw) as PlanClaim) : undefined;
  }

  handBack(incidentId: string): Promise<boolean> {
    return this.once(`${this.p}:back:${incidentId}`, "1");
  }

  async handedBack(incidentId: string): Promise<boolean> {
    return (await this.redis.exists(`${this.p}:back:${incidentId}`)) === 1;
  }

  async recordChange(table: string, member: string, atMs: number): Promise<void> {
    // NX: a retried fire counts once, at its first time.
    await this.redis
      .multi()
      .zadd(`${this.p}:changes:${table}`, "NX", atMs, member)
      .zadd(`${this.p}:changes`, "NX", atMs, member)
      .zremrangebyscore(`${this.p}:changes:${table}`, "-inf", atMs - 2 * DAY_MS)
      .zremrangebyscore(`${this.p}:changes`, "-inf", atMs - 2 * DAY_MS)
      .exec();
  }

  async changesSince(table: string | undefined, sinceMs: number): Promise<number> {
    const key = table === undefined ? `${this.p}:changes` : `${this.p}:changes:${table}`;
    return this.redis.zcount(key, sinceMs, "+inf");
  }

  async recordRevert(member: string, atMs: number, windowMs: number): Promise<number> {
    const key = `${this.p}:reverts`;
    const [, , counted] =
      (await this.redis
        .multi()
        .zadd(key, "NX", atMs, member)
        .zremrangebyscore(key, "-inf", atMs - windowMs - 1)
        .zcount(key, atMs - windowMs, "+inf")
        .exec()) ?? [];
    return Number(counted?.[1] ?? 0);
  }

  async judgeShadow(incidentId: string, stepId: StepId, matched: boolean, fixed: boolean): Promise<void> {
    if (!(await this.once(`${this.p}:judged:${incidentId}`, "1"))) return;
    const key = `${this.p}:shadow`;
    const tx = this.redis.multi().hincrby(key, `${stepId}|would`, 1);
    if (matched) tx.hincrby(key, `${stepId}|matched`, 1);
    if (fixed) tx.hincrby(key, `${stepId}|fixed`, 1);
    await tx.exec();
  }

  async shadowTally(): Promise<ShadowTally[]> {
    const all = await this.redis.hgetall(`${this.p}:shadow`);
    const steps = new Set(Object.keys(all).map((field) => field.split("|")[0] as string));
    return [...steps]
      .filter((id): id is StepId => (STEP_IDS as readonly string[]).includes(id))
      .sort()
      .map((stepId) => ({
        stepId,
        would: Number(all[`${stepId}|would`] ?? 0),
        matched: Number(all[`${stepId}|matched`] ?? 0),
        fixed: Number(all[`${stepId}|fixed`] ?? 0),
      }));
  }

  async noteRefusal(incidentId: string, refusal: Refusal): Promise<void> {
    await this.redis
      .multi()
      .set(`${this.p}:refused:${incidentId}`, JSON.stringify(refusal), "EX", INCIDENT_TTL_SECONDS)
      .hincrby(`${this.p}:refusals`, refusal.kind, 1)
      .exec();
  }
}
