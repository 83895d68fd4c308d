import { defineConfig } from "vitest/config";

/** The suites whose flows must also hold on a Redis Cluster (keys and scripts in one slot). */
export const CLUSTER_SUITES = [
  "test/integration/bot/storm.test.ts",
  "test/integration/remediation/service.test.ts",
  "test/integration/remediation/failures.test.ts",
  "test/e2e/remediation-walk.test.ts",
  "test/integration/redis-batched-first-time.test.ts",
  "test/integration/command-inbox.test.ts",
  "test/drills/cluster-*.test.ts",
];

export default defineConfig({
  test: {
    // Generous: these only catch a hang. Tests wait on events (test/support/poll.ts), never on a
    // wall-clock deadline, and a loaded 2-core machine (scripts/busy-machine.sh) can be 10x slower.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    // Integration suites start loopback servers and talk to one Redis; a few files at once is plenty.
    maxWorkers: 2,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "standalone",
          include: ["test/**/*.test.ts"],
          exclude: ["test/drills/cluster-*.test.ts"],
          globalSetup: ["test/global-setup.ts"],
        },
      },
      {
        // The same storm and remediation flows against a real Redis Cluster the setup starts.
        extends: true,
        test: { name: "cluster", include: CLUSTER_SUITES, globalSetup: ["test/drills/cluster-setup.ts"] },
      },
    ],
  },
});
