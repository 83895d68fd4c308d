import type { SourceName } from "../../core/ids.js";

/** How each source is named in messages people read. */
export const SOURCE_LABELS: Record<SourceName, string> = {
  catalog: "Iceberg REST catalog",
  flink: "Flink REST API",
  connect: "Kafka Connect REST API",
  prometheus: "Prometheus",
};
