// The CLI sweep against a hostile catalog, for the numbers in docs/sweep.md: how many requests it
// sends and how much memory it holds within a few seconds. Run:
//   node --import tsx bench/hostile-sweep.ts ignore-parent|endless-token [seconds]
// The sweep runs in a child process so that one that never ends can be stopped and measured.

import { spawn } from "node:child_process";
import { type HostileMode, startHostileCatalog } from "../src/sim/servers/hostile-catalog.js";

const mode = (process.argv[2] ?? "ignore-parent") as HostileMode;
const seconds = Number(process.argv[3] ?? 10);
const catalog = await startHostileCatalog(mode);
const started = performance.now();
const child = spawn(
  process.execPath,
  ["--import", "tsx", "src/cli/main.ts", "sweep", "--catalog-url", catalog.url, "--format", "json"],
  { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "silent" } },
);
let out = "";
child.stdout.on("data", (c) => (out += c));
child.stderr.on("data", (c) => (out += c));
let peakRssMiB = 0;
const sampler = setInterval(async () => {
  try {
    const { readFile } = await import("node:fs/promises");
    const status = await readFile(`/proc/${child.pid}/status`, "utf8");
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    peakRssMiB = Math.max(peakRssMiB, rss);
  } catch {}
}, 200);
const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
const timer = setTimeout(() => child.kill("SIGKILL"), seconds * 1000);
const code = await exited;
clearTimeout(timer);
clearInterval(sampler);
const elapsed = (performance.now() - started) / 1000;
console.log(
  JSON.stringify(
    {
      mode,
      finished: code !== null,
      exitCode: code,
      seconds: Number(elapsed.toFixed(1)),
      requests: catalog.requests,
      peakRssMiB: Math.round(peakRssMiB),
      skipped: (() => {
        try {
          return JSON.parse(out).skipped;
        } catch {
          return out.slice(0, 300);
        }
      })(),
    },
    null,
    2,
  ),
);
await catalog.close();
