// The load generator for the ack benchmark, in its own process so that firing 200 requests does
// not compete for the event loop of the apps being measured. Prints the latencies as JSON.
import { pooled, signedSlashCommand } from "./_bot-setup.js";

const [url, secret, concurrencyText, roundsText] = process.argv.slice(2);
if (!url || !secret) throw new Error("usage: _ack-load.ts <url> <secret> <concurrency> <rounds>");
const concurrency = Number(concurrencyText ?? 200);
const rounds = Number(roundsText ?? 3);

const all: number[] = [];
for (let round = 0; round < rounds; round++) {
  const latencies = await pooled(concurrency, concurrency, async (i) => {
    const { body, headers } = signedSlashCommand(secret, "diagnose db.events", round * concurrency + i);
    const response = await fetch(url, { method: "POST", headers, body });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 200)}`);
  });
  // The first round warms connections and JIT; only later rounds count.
  if (round > 0) all.push(...latencies);
}
process.stdout.write(`${JSON.stringify(all)}\n`);
