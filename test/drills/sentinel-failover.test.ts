// Failover drill on real Redis Sentinel: a primary, a replica and three Sentinels on loopback
// (see failover-drill.ts for what the drill does and checks).
import { afterAll, describe, it } from "vitest";
import { type SentinelGroup, startSentinelGroup } from "../support/redis-topology.js";
import { runFailoverDrill } from "./failover-drill.js";

let group: SentinelGroup | undefined;
afterAll(async () => {
  await group?.stop();
});

describe("Redis Sentinel failover during an alert storm", () => {
  it("acknowledges no alert it loses, keeps one thread per table, and the walk's follow-up fires on the new primary", async () => {
    group = await startSentinelGroup({ sentinels: 3, downAfterMs: 1000 });
    const sentinels = group;
    await runFailoverDrill({
      label: "sentinel-drill",
      topology: "sentinel",
      url: sentinels.url,
      primary: async () => `127.0.0.1:${await sentinels.currentPrimary()}`,
      killPrimary: () => sentinels.killPrimary(),
    });
  });
});
