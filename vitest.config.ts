import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration suites start loopback servers and talk to one Redis; a few files at once is plenty.
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
