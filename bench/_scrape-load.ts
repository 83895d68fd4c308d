// The load generator for the scrape benchmark, in its own process. Reads its plan as JSON on
// stdin: { targets: [{ name, url }], rounds, perRound }. Each round scrapes every target
// `perRound` times, one request at a time as Prometheus does, the order rotating from round to
// round; the first round warms up and is not counted in the latencies. Prints the latencies per
// target and how many answers carried the incidents series.
import { timed } from "./_bot-setup.js";

interface Plan {
  targets: { name: string; url: string }[];
  rounds: number;
  perRound: number;
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const plan = JSON.parse(input) as Plan;

const out: Record<string, { latencies: number[]; rounds: number[][]; withIncidents: number }> = {};
for (const t of plan.targets) out[t.name] = { latencies: [], rounds: [], withIncidents: 0 };
for (let round = 0; round <= plan.rounds; round++) {
  const order = plan.targets.map((_, i) => plan.targets[(i + round) % plan.targets.length]!);
  for (const target of order) {
    const latencies: number[] = [];
    for (let i = 0; i < plan.perRound; i++) {
      let text = "";
      latencies.push(
        await timed(async () => {
          const response = await fetch(target.url);
          text = await response.text();
          if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}`);
        }),
      );
      if (/^iceberg_bot_incidents\{/m.test(text)) out[target.name]!.withIncidents += 1;
    }
    if (round > 0) {
      out[target.name]!.latencies.push(...latencies);
      out[target.name]!.rounds.push(latencies);
    }
  }
}
process.stdout.write(`${JSON.stringify(out)}\n`);
