// Kafka Connect REST shapes (ConnectorStateInfo, ConnectorInfo, plugin list) the bot reads.

import { z } from "zod";
import { parseExceptionChain } from "../../../core/evidence/exceptions.js";
import type { ConnectorStatus, ConnectWorkStatus } from "../../../core/evidence/model.js";

const StateSchema = z.object({
  state: z.string(),
  worker_id: z.string().default(""),
  trace: z.string().nullish(),
});

export const ConnectorStateInfoSchema = z.object({
  name: z.string(),
  connector: StateSchema,
  tasks: z.array(StateSchema.extend({ id: z.number().int() })).default([]),
  type: z.string().default("unknown"),
});

export const ConnectorConfigSchema = z.record(z.string(), z.string());

export const ConnectorInfoSchema = z.object({
  name: z.string(),
  config: ConnectorConfigSchema,
  type: z.string().default("unknown"),
});

/** GET /connectors?expand=status&expand=info */
export const ExpandedConnectorsSchema = z.record(
  z.string(),
  z.object({ status: ConnectorStateInfoSchema.optional(), info: ConnectorInfoSchema.optional() }),
);

export const ConnectorPluginsSchema = z.array(
  z.object({ class: z.string(), type: z.string().optional(), version: z.string().optional() }),
);

export function toConnectorStatus(raw: z.infer<typeof ConnectorStateInfoSchema>): ConnectorStatus {
  return {
    name: raw.name,
    type: raw.type,
    ...toWorkStatus(raw.connector),
    tasks: raw.tasks.map((t) => ({ id: t.id, ...toWorkStatus(t) })).sort((a, b) => a.id - b.id),
  };
}

/** A connector's or task's state, with its trace read down to the root of its `Caused by:` chain. */
function toWorkStatus(raw: z.infer<typeof StateSchema>): ConnectWorkStatus {
  const causes = raw.trace ? parseExceptionChain(raw.trace) : [];
  return {
    state: raw.state,
    workerId: raw.worker_id,
    trace: raw.trace ?? undefined,
    ...(causes.length > 0 ? { causes } : {}),
  };
}
