// One simulated lakehouse per test file, started before the tests and closed after them, with a
// shared undici agent for the clients and faults cleared between tests so none leaks into the next.

import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { createEvidencePorts } from "../../src/adapters/evidence/from-config.js";
import { loadConfig } from "../../src/config.js";
import { CodedError } from "../../src/errors.js";
import type { EvidencePorts } from "../../src/services/ports.js";
import { type Lakehouse, type LakehouseOptions, startLakehouse } from "../../src/sim/lakehouse.js";

type ScenarioInput = LakehouseOptions["scenario"];

export interface SharedLakehouse {
  /** The running lakehouse; it starts in beforeAll, so read it inside tests and hooks only. */
  readonly lakehouse: Lakehouse;
  readonly agent: Agent;
}

/** Registers the hooks; pass a function when the scenario is built or tweaked at start time. */
export function useLakehouse(scenario: ScenarioInput | (() => ScenarioInput)): SharedLakehouse {
  const agent = new Agent();
  let current: Lakehouse | undefined;
  beforeAll(async () => {
    current = await startLakehouse({ scenario: typeof scenario === "function" ? scenario() : scenario });
  });
  afterEach(() => current?.faults.clear());
  afterAll(async () => {
    await current?.close();
    await agent.close();
  });
  return {
    agent,
    get lakehouse(): Lakehouse {
      if (current === undefined) throw new Error("The lakehouse starts in beforeAll; read it inside a test.");
      return current;
    },
  };
}

/** Evidence ports for every service of a lakehouse, built through the real config path. */
export function evidencePortsFor(lakehouse: Lakehouse, agent: Agent, timeoutMs = 2_000): EvidencePorts {
  const config = loadConfig({
    ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
    FLINK_REST_URL: lakehouse.urls.flink,
    CONNECT_REST_URL: lakehouse.urls.connect,
    PROMETHEUS_URL: lakehouse.urls.prometheus,
  });
  return createEvidencePorts(config, { dispatcher: agent, timeoutMs });
}

/** Awaits a call that must fail and returns its CodedError (the test fails on anything else). */
export async function codedFailure(pending: Promise<unknown>): Promise<CodedError> {
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CodedError);
  return error as CodedError;
}
