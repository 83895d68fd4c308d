// Builds the evidence ports from the loaded configuration: only the sources that are configured.

import type { Dispatcher } from "undici";
import type { Config } from "../../config.js";
import type { EvidencePorts } from "../../services/ports.js";
import type { CatalogAuth } from "./catalog/auth.js";
import { createCatalogClient } from "./catalog/client.js";
import { createConnectClient } from "./connect/client.js";
import { createFlinkClient } from "./flink/client.js";
import { createPrometheusClient } from "./prometheus-client.js";

export interface EvidencePortOverrides {
  dispatcher?: Dispatcher;
  /** A dispatcher for one source only (the sweep's rate-limited Flink and Connect). */
  dispatchers?: Partial<Record<"catalog" | "flink" | "connect" | "prometheus", Dispatcher>>;
  timeoutMs?: number;
  maxBytes?: number;
  /** Clock for OAuth token expiry (wall time by default). */
  now?: () => number;
}

export function createEvidencePorts(config: Config, overrides: EvidencePortOverrides = {}): EvidencePorts {
  const common = {
    dispatcher: overrides.dispatcher,
    timeoutMs: overrides.timeoutMs ?? config.sourceTimeoutMs,
    maxBytes: overrides.maxBytes,
  };
  const ports: EvidencePorts = {};
  if (config.catalog.url) {
    ports.catalog = createCatalogClient({
      ...common,
      dispatcher: overrides.dispatchers?.catalog ?? common.dispatcher,
      url: config.catalog.url,
      warehouse: config.catalog.warehouse,
      auth: catalogAuth(config),
      now: overrides.now,
    });
  }
  const own = (source: keyof NonNullable<EvidencePortOverrides["dispatchers"]>) => ({
    ...common,
    dispatcher: overrides.dispatchers?.[source] ?? common.dispatcher,
  });
  if (config.flinkUrl) ports.flink = createFlinkClient({ ...own("flink"), url: config.flinkUrl });
  if (config.connectUrl) ports.connect = createConnectClient({ ...own("connect"), url: config.connectUrl });
  if (config.prometheusUrl)
    ports.prometheus = createPrometheusClient({ ...own("prometheus"), url: config.prometheusUrl });
  return ports;
}

/** Client credentials win over a fixed token when both are set: they can be renewed. */
export function catalogAuth(config: Config): CatalogAuth {
  const { credential, token, oauthUri, scope } = config.catalog;
  if (credential) return { kind: "oauth2", credential, tokenUrl: oauthUri, scope };
  if (token) return { kind: "bearer", token };
  return { kind: "none" };
}
