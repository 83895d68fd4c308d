// Kafka Connect REST shapes (ConnectorStateInfo, ConnectorInfo, plugin list) the bot reads.

import { z } from "zod";
import { parseExceptionChain } from "../../../core/evidence/exceptions.js";
import type { ConnectorStatus, ExceptionCause } from "../../../core/evidence/model.js";

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
    state: raw.connector.state,
    workerId: raw.connector.worker_id,
    trace: raw.connector.trace ?? undefined,
    ...chainOf(raw.connector.trace),
    tasks: raw.tasks
      .map((t) => ({
        id: t.id,
        state: t.state,
        workerId: t.worker_id,
        trace: t.trace ?? undefined,
        ...chainOf(t.trace),
      }))
      .sort((a, b) => a.id - b.id),
  };
}

/** A trace read down to the root of its `Caused by:` chain; nothing when there is no trace. */
function chainOf(trace: string | null | undefined): { causes?: ExceptionCause[] } {
  if (!trace) return {};
  const causes = parseExceptionChain(trace);
  return causes.length > 0 ? { causes } : {};
}
