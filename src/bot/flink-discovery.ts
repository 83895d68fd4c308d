// Flink Kubernetes Operator discovery as a part of the bot: with a `kubernetes` section, the
// discovered JobManagers join the configured Flink sources of every investigation and sweep, and
// the listing is kept current on its interval from start to stop.

import type { Logger } from "pino";
import { FlinkDiscovery, type FlinkDiscoveryOptions } from "../adapters/evidence/kubernetes/discovery.js";
import type { Config } from "../config.js";
import type { FlinkSourceProvider } from "../core/sources/model.js";
import type { Part } from "./part.js";

export interface FlinkDiscoveryPart extends Part {
  discovery: FlinkDiscovery;
  /** What the evidence ports ask on every Flink listing. */
  provider: FlinkSourceProvider;
}

/** The part, or undefined without a kubernetes section. */
export function flinkDiscoveryPart(
  config: Config,
  log: Pick<Logger, "info" | "warn">,
  seams: Pick<FlinkDiscoveryOptions, "connection" | "readFile" | "now"> = {},
): FlinkDiscoveryPart | undefined {
  const settings = config.bot.kubernetes;
  if (!settings) return undefined;
  const discovery = new FlinkDiscovery({
    settings,
    inCluster: config.kubernetesService ? { service: config.kubernetesService } : {},
    timeoutMs: config.sourceTimeoutMs,
    log,
    ...seams,
  });
  return {
    name: "flink discovery",
    discovery,
    provider: discovery.provider(config.discoveredFlink),
    // The first listing is not awaited: a slow or refusing API server must not hold the bot's
    // start. Until it answers, an investigation's listing waits for it (joined, never repeated).
    start() {
      void discovery
        .start()
        .catch((error: unknown) =>
          log.warn({ err: String(error) }, "Kubernetes discovery's first listing failed"),
        );
    },
    stop: () => discovery.stop(),
  };
}
