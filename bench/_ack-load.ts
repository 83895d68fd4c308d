// The load generator for the ack benchmark, in its own process so that firing the requests does
// not compete for the event loop of the apps being measured. Reads its plan as JSON on stdin:
// { targets: [{ name, url }], secret, concurrency, rounds }. Each round fires `concurrency`
// signed commands at once at every target in turn, the order rotating from round to round; the
// first round warms connections and JIT and is not counted. Prints the latencies per target, and
// each target's CPU time per request in each round (read from /proc at the start of its burst and
// of its next one, so all it did for a round counts, the recording after the acks included).
import { pooled, signedSlashCommand } from "./_bot-setup.js";
import { cpuMs } from "./_processes.js";

/** After the last round, how long each server gets to finish what it does after its acks. */
const SETTLE_MS = 1_000;

interface Plan {
  targets: { name: string; url: string; pid: number }[];
  secret: string;
  concurrency: number;
  rounds: number;
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input) as Plan;

const out: Record<string, { latencies: number[]; rounds: number[][]; cpuMsPerRequest: number[] }> = {};
for (const t of plan.targets) out[t.name] = { latencies: [], rounds: [], cpuMsPerRequest: [] };
const burstStart = new Map<string, number | undefined>();
const countCpu = (name: string, pid: number) => {
  const before = burstStart.get(name);
  const now = cpuMs(pid);
  if (before !== undefined && now !== undefined)
    out[name]!.cpuMsPerRequest.push((now - before) / plan.concurrency);
  burstStart.set(name, now);
};
let n = 0;
for (let round = 0; round <= plan.rounds; round++) {
  const order = plan.targets.map((_, i) => plan.targets[(i + round) % plan.targets.length]!);
  for (const target of order) {
    // Closes the target's previous round (the warm-up round is not counted).
    if (round > 1) countCpu(target.name, target.pid);
    else if (round === 1) burstStart.set(target.name, cpuMs(target.pid));
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
await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
for (const target of plan.targets) countCpu(target.name, target.pid);
process.stdout.write(`${JSON.stringify(out)}\n`);
