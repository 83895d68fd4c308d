import { Queue, Worker } from "bullmq";
import { createRedisClient } from "../src/adapters/redis/connection.js";
import { startSentinelGroup } from "./support/redis-topology.js";

const g = await startSentinelGroup({ sentinels: 3, downAfterMs: 1000 });
const cmd = createRedisClient(g.url, "commands");
const blk = createRedisClient(g.url, "blocking");
cmd.on("error", () => {});
blk.on("error", () => {});
const q = new Queue("q", { connection: cmd, prefix: "{dbg}" });
q.on("error", () => {});
let done = 0;
const w = new Worker(
  "q",
  async () => {
    await new Promise((r) => setTimeout(r, 20));
    done++;
  },
  { connection: blk, prefix: "{dbg}", concurrency: 4, lockDuration: 2000, stalledInterval: 1000 },
);
w.on("error", (e) => console.log("worker error", e.message));
const t0 = Date.now();
let added = 0;
const adder = setInterval(() => {
  q.add("j", {}).then(
    () => added++,
    (e) => console.log("add failed", e.message),
  );
}, 50);
setTimeout(() => {
  console.log("kill at", Date.now() - t0, "done", done);
  g.killPrimary();
}, 1500);
const rep = setInterval(
  async () =>
    console.log(Date.now() - t0, "added", added, "done", done, "blk", blk.status, "cmd", cmd.status),
  1000,
);
setTimeout(async () => {
  clearInterval(adder);
  clearInterval(rep);
  console.log("final added", added, "done", done, "primary", await g.currentPrimary(), g.replicaPort);
  await w.close(true);
  await q.close();
  cmd.disconnect();
  blk.disconnect();
  await g.stop();
  process.exit(0);
}, 15000);
