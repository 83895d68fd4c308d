// ConnectPort over the Kafka Connect REST API: connector status with traces, config, the Iceberg
// sink's plugin version, restarts (204 vs 202) and config updates. A 409 means the workers are
// rebalancing: the call may succeed a little later, so it is flagged retryable.

import { CodedError, ErrorCode, isCodedError } from "../../../errors.js";
import type { ConnectorInfo, ConnectPort, RestartOutcome } from "../../../services/ports.js";
import {
  buildUrl,
  type HttpRequest,
  jsonGetter,
  parseBody,
  type SourceClientOptions,
  send,
  sendJson,
} from "../http.js";
import {
  ConnectorConfigSchema,
  ConnectorInfoSchema,
  ConnectorPluginsSchema,
  ConnectorStateInfoSchema,
  ExpandedConnectorsSchema,
  toConnectorStatus,
} from "./schemas.js";

const ICEBERG_SINK_CLASS = "org.apache.iceberg.connect.IcebergSinkConnector";

export function createConnectClient(options: SourceClientOptions): ConnectPort {
  const http = { ...options, source: "connect" as const };
  const get = jsonGetter(http);
  const connectorPath = (name: string, rest = "") => `connectors/${encodeURIComponent(name)}${rest}`;

  return {
    async listConnectors() {
      const expanded = await get("connectors", ExpandedConnectorsSchema, { expand: ["status", "info"] });
      return Object.entries(expanded).map(
        ([name, entry]): ConnectorInfo => ({
          name,
          type: entry.info?.type ?? entry.status?.type ?? "unknown",
          config: entry.info?.config ?? {},
          status: entry.status ? toConnectorStatus(entry.status) : undefined,
        }),
      );
    },

    async getConnectorEvidence(name) {
      const [status, config, sinkVersion] = await Promise.all([
        get(connectorPath(name, "/status"), ConnectorStateInfoSchema),
        get(connectorPath(name, "/config"), ConnectorConfigSchema),
        icebergSinkVersion(get),
      ]);
      return { connector: toConnectorStatus(status), config, sinkVersion };
    },

    async restart(name, { includeTasks, onlyFailed }) {
      const url = buildUrl(options.url, connectorPath(name, "/restart"), {
        includeTasks: String(includeTasks),
        onlyFailed: String(onlyFailed),
      });
      const response = await guarded(name, () => send(http, { method: "POST", url }, [202, 204]));
      if (response.status === 204) return { httpStatus: 204 } satisfies RestartOutcome;
      const body = parseBody(ConnectorStateInfoSchema, response.body, "connect", `POST ${response.path}`);
      return { httpStatus: 202, status: toConnectorStatus(body) } satisfies RestartOutcome;
    },

    async updateConfig(name, config) {
      const req: HttpRequest = {
        method: "PUT",
        url: buildUrl(options.url, connectorPath(name, "/config")),
        headers: { "content-type": "application/json" },
        body: JSON.stringify(config),
      };
      const info = await guarded(name, () => sendJson(http, req, ConnectorInfoSchema, [200, 201]));
      return info.config;
    },
  };
}

/** Runs a call and turns a 409 into a retryable coded error. */
async function guarded<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isCodedError(error) && error.details?.status === 409) {
      throw new CodedError(
        ErrorCode.SourceRetryable,
        `Kafka Connect is rebalancing and refused the change to ${name} for now (HTTP 409)`,
        {
          hint: "Wait for the rebalance to finish (a few seconds to a minute), then try again.",
          retryable: true,
          details: { ...error.details },
          cause: error,
        },
      );
    }
    throw error;
  }
}

/** The plugin list is only a detail: when it cannot be read the version stays unknown. */
async function icebergSinkVersion(get: ReturnType<typeof jsonGetter>): Promise<string | undefined> {
  try {
    const plugins = await get("connector-plugins", ConnectorPluginsSchema);
    return plugins.find((p) => p.class === ICEBERG_SINK_CLASS)?.version;
  } catch (error) {
    if (isCodedError(error) && error.code === ErrorCode.SourceHttpStatus) return undefined;
    throw error;
  }
}
