// The load generator for the ack benchmark, in its own process so that firing the requests does
// not compete for the event loop of the apps being measured. Reads its plan as JSON on stdin:
// { targets: [{ name, url }], secret, concurrency, rounds }. Each round fires `concurrency`
// signed commands at once at every target in turn, the order rotating from round to round; the
// first round warms connections and JIT and is not counted. Prints the latencies per target.
import { pooled, signedSlashCommand } from "./_bot-setup.js";

interface Plan {
  targets: { name: string; url: string }[];
  secret: string;
  concurrency: number;
  rounds: number;
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input) as Plan;

const out: Record<string, { latencies: number[]; rounds: number[][] }> = {};
for (const t of plan.targets) out[t.name] = { latencies: [], rounds: [] };
let n = 0;
for (let round = 0; round <= plan.rounds; round++) {
  const order = plan.targets.map((_, i) => plan.targets[(i + round) % plan.targets.length]!);
  for (const target of order) {
    const latencies = await pooled(plan.concurrency, plan.concurrency, async () => {
      const { body, headers } = signedSlashCommand(plan.secret, "diagnose db.events", n++);
      const response = await fetch(target.url, { method: "POST", headers, body });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`${target.name} answered ${response.status}: ${text.slice(0, 200)}`);
    });
    if (round > 0) {
      out[target.name]!.latencies.push(...latencies);
      out[target.name]!.rounds.push(latencies);
    }
  }
}
process.stdout.write(`${JSON.stringify(out)}\n`);
