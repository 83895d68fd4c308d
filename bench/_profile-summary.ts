// Summarises a V8 CPU profile (node --cpu-prof): time per package and the functions with the
// most self time. `BENCH_CPU_PROF=<dir> npm run bench -- ack-latency` profiles the receivers.
//   node --import tsx bench/_profile-summary.ts <file.cpuprofile>
import { readFileSync } from "node:fs";

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

const profile = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8")) as Profile;
const time = new Map<number, number>();
profile.samples.forEach((id, i) => {
  time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...time.values()].reduce((a, b) => a + b, 0);
const self = new Map<string, number>();
const byPackage = new Map<string, number>();
for (const node of profile.nodes) {
  const t = time.get(node.id) ?? 0;
  if (t === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/.*node_modules\//, "").replace(/.*\/(src|bench)\//, "$1/");
  const fn = `${functionName || "(anonymous)"} ${where}:${lineNumber}`;
  self.set(fn, (self.get(fn) ?? 0) + t);
  const pkg = url.includes("node_modules/")
    ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, "$1")
    : url.includes("/src/")
      ? url.replace(/.*\/src\/([^/]+(\/[^/]+)?).*/, "src/$1")
      : url || functionName;
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + t);
}
const top = (m: Map<string, number>, n: number) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(
      ([name, t]) =>
        `${(t / 1000).toFixed(0).padStart(7)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${name}`,
    )
    .join("\n");
console.log(
  `${(total / 1000).toFixed(0)} ms sampled\n\nby package\n${top(byPackage, 15)}\n\nself time\n${top(self, 20)}`,
);
