// Global setup of the "cluster" test project: a real 3-primary Redis Cluster with one replica per
// primary, on loopback, for the bot's storm and remediation suites to run against.
import type { TestProject } from "vitest/node";
import { startCluster } from "../support/redis-topology.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startCluster(3, 1);
  project.provide("redisUrl", cluster.url);
  return () => cluster.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl?: string;
  }
}
