// The load generator for the storm benchmark, in its own process. Reads its plan as JSON on
// stdin: { targets: [{ name, urls }], token, alerts, tables, inFlight, rounds }. Every round sends
// alerts/rounds Alertmanager notifications to each target in turn (the order rotating), at most
// `inFlight` at a time, spread over the target's urls; a first, uncounted round of a tenth of that
// warms connections and JIT (and opens the incidents, so their diagnoses run during the counted
// rounds). Prints latencies and non-2xx counts.
import { alertmanagerBody } from "../src/sim/alertmanager.js";
import { pooled } from "./_bot-setup.js";

interface Plan {
  targets: { name: string; urls: string[] }[];
  token: string;
  alerts: number;
  tables: number;
  inFlight: number;
  rounds: number;
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input) as Plan;
const perRound = Math.ceil(plan.alerts / plan.rounds);

function body(i: number): string {
  return alertmanagerBody([
    { table: `db.storm_${i % plan.tables}`, fingerprint: `storm${i.toString().padStart(11, "0")}` },
  ]);
}

const out: Record<string, { latencies: number[]; rounds: number[][]; failed: number; seconds: number }> = {};
for (const t of plan.targets) out[t.name] = { latencies: [], rounds: [], failed: 0, seconds: 0 };
const warmUp = Math.ceil(perRound / 10);
for (let round = -1; round < plan.rounds; round++) {
  const order = plan.targets.map((_, i) => plan.targets[(i + round + 1) % plan.targets.length]!);
  for (const target of order) {
    const result = out[target.name]!;
    const started = performance.now();
    const count = round < 0 ? warmUp : perRound;
    const latencies = await pooled(count, plan.inFlight, async (k) => {
      // Warm-up alerts come after the counted ones in numbering, so every fingerprint is new.
      const i = round < 0 ? plan.rounds * perRound + k : round * perRound + k;
      const response = await fetch(`${target.urls[i % target.urls.length]}/webhooks/alertmanager`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${plan.token}` },
        body: body(i),
      });
      await response.text();
      if (response.status < 200 || response.status >= 300) result.failed++;
    });
    if (round < 0) continue;
    result.seconds += (performance.now() - started) / 1000;
    result.latencies.push(...latencies);
    result.rounds.push(latencies);
  }
}
process.stdout.write(`${JSON.stringify(out)}\n`);
