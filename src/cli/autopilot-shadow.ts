// Shadow mode over scenarios: each scenario's demo runs with `autopilot.mode: shadow` (people
// approve as usual), and what autopilot recorded is read back: the step it would have applied (or
// why not), whether people applied that step first, and whether it is the step that fixed the
// incident. `bench/autopilot-shadow.ts` runs it over the whole library.

import { Redis } from "ioredis";
import { AutopilotStore } from "../adapters/store/autopilot-store.js";
import { type DemoEnd, recordedRefusal, runDemo } from "./demo.js";

export interface ShadowRow {
  scenario: string;
  /** The step autopilot would have applied; absent when it would not have acted. */
  would?: string;
  /** Why it would not have acted (absent when it would have, or when no step was proposed). */
  refused?: string;
  /** The step the card says fixed the incident, by its title. */
  fixedBy?: string;
  /** People applied the same step first. */
  matched: boolean;
  /** That step fixed the incident. */
  fixed: boolean;
  /** The demo's exit code (0: it ran to the end). */
  code: number;
}

export async function shadowOverScenarios(
  names: readonly string[],
  options: { redisUrl: string; parallel?: number; followUpIntervalMs?: number },
): Promise<ShadowRow[]> {
  const rows: ShadowRow[] = [];
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      let row: Omit<ShadowRow, "code"> = { scenario: name, matched: false, fixed: false };
      const code = await runDemo({
        scenario: name,
        autopilot: "shadow",
        stdout: { write: () => true },
        env: { REDIS_URL: options.redisUrl },
        followUpIntervalMs: options.followUpIntervalMs ?? 150,
        onEnd: async (end) => {
          row = await readShadow(name, end);
        },
      });
      rows.push({ ...row, code });
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 2 }, worker));
  return rows.sort((a, b) => a.scenario.localeCompare(b.scenario));
}

async function readShadow(scenario: string, end: DemoEnd): Promise<Omit<ShadowRow, "code">> {
  const redis = new Redis(end.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const prefix = `{${end.namespace}}:autopilot`;
    const store = new AutopilotStore(redis, end.namespace);
    const planKey = (await redis.keys(`${prefix}:plan:*`))[0];
    const plan = planKey ? await store.plan(planKey.slice(`${prefix}:plan:`.length)) : undefined;
    const refused = plan ? undefined : await recordedRefusal(redis, end.namespace);
    const tally = plan ? (await store.shadowTally()).find((t) => t.stepId === plan.stepId) : undefined;
    // The card's blocks say what fixed it ("Fixed by:* Give the writer …; commits resumed …").
    const card = JSON.stringify(end.thread[0]?.blocks ?? []);
    const fixedBy = /Fixed by:\*? ([^;"\\]+)/.exec(card)?.[1]?.trim();
    return {
      scenario,
      ...(plan ? { would: plan.stepId } : {}),
      ...(refused ? { refused } : {}),
      ...(fixedBy ? { fixedBy } : {}),
      matched: (tally?.matched ?? 0) > 0,
      fixed: (tally?.fixed ?? 0) > 0,
    };
  } finally {
    redis.disconnect();
  }
}

/** One line per scenario and the agreement per step, as the bench prints them. */
export function shadowLines(rows: readonly ShadowRow[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rows) {
    const would = r.would
      ? `would apply ${r.would}`
      : `would not act (${r.refused ?? "no step was proposed"})`;
    const verdict = r.would
      ? `; people ${r.matched ? "did the same" : "did otherwise"}; ${r.fixed ? "it fixed it" : "it did not fix it"}`
      : "";
    out[r.scenario] =
      `${would}${verdict}; fixed by ${r.fixedBy ?? "nothing"}${r.code === 0 ? "" : ` (demo exit ${r.code})`}`;
  }
  const steps = new Map<string, { would: number; matched: number; fixed: number }>();
  for (const r of rows) {
    if (!r.would) continue;
    const s = steps.get(r.would) ?? { would: 0, matched: 0, fixed: 0 };
    s.would++;
    if (r.matched) s.matched++;
    if (r.fixed) s.fixed++;
    steps.set(r.would, s);
  }
  for (const [step, s] of steps)
    out[`agreement ${step}`] = `${s.matched} of ${s.would} matched, ${s.fixed} of ${s.would} fixed`;
  return out;
}
