// One bot worker process for the sweep benchmark: started with BENCH_WORKER (JSON), it reports
// its peak resident memory when asked over IPC.

import { loadConfig } from "../src/config.js";
import { startBot } from "../src/main.js";

const spec = JSON.parse(process.env.BENCH_WORKER ?? "{}") as {
  env: Record<string, string>;
  namespace: string;
  queuePrefix: string;
};
let peakHeap = 0;
const sample = setInterval(() => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
}, 100);
sample.unref();
const bot = await startBot(loadConfig(spec.env), {
  role: "worker",
  namespace: spec.namespace,
  queuePrefix: spec.queuePrefix,
  sweepConcurrency: 16,
});
process.on("message", async (message: { type: string }) => {
  if (message.type === "report") {
    // What the worker still holds after the sweep: garbage collected first (started with --expose-gc).
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({
      type: "report",
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      peakHeapBytes: peakHeap,
      heapAfterGcBytes: process.memoryUsage().heapUsed,
    });
  }
  if (message.type === "stop") {
    await bot.stop();
    process.exit(0);
  }
});
process.send?.({ type: "ready" });
