// The stand-in sources for the cold-start benchmark, in their own process so the measured
// processes share the machine with them but not an event loop: the simulated Iceberg REST catalog,
// Flink and Kafka Connect of one scenario. Prints their URLs; on each "requests" line from stdin
// prints what they were asked since the last one (method, source, path and query), oldest first.

import { createInterface } from "node:readline";
import { startLakehouse } from "../src/sim/lakehouse.js";

const lakehouse = await startLakehouse({ scenario: process.argv[2] ?? "healthy-connect" });
const { catalog, flink, connect } = lakehouse.urls;
process.stdout.write(`${JSON.stringify({ catalog, flink, connect })}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() !== "requests") return;
  const asked = lakehouse.requests.splice(0).map((r) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(r.query)) {
      for (const one of Array.isArray(value) ? value : [value]) query.append(key, one);
    }
    query.sort();
    const search = query.toString();
    return `${r.method} ${r.service} ${r.path}${search ? `?${search}` : ""}`;
  });
  process.stdout.write(`${JSON.stringify(asked)}\n`);
});
process.on("SIGTERM", () => {
  void lakehouse.close().then(() => process.exit(0));
});
