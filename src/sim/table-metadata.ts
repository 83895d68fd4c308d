// Renders one table's LoadTableResult text straight from a table description, without servers;
// benchmarks use it to measure parsing of very large metadata.

import type { z } from "zod";
import { SimTable } from "./model/table.js";
import { type TableScenario, TableScenarioSchema } from "./scenario/schema.js";

/** The LoadTableResult JSON text for `table` with relative times resolved against `clockMs`. */
export function generateTableMetadataJson(
  table: TableScenario | z.input<typeof TableScenarioSchema>,
  clockMs: number,
  warehouse = "s3://lake/warehouse",
): string {
  const parsed = TableScenarioSchema.parse(table);
  const sim = new SimTable(parsed, warehouse, clockMs);
  sim.addScenarioSnapshots(parsed, clockMs);
  return sim.loadResultJson();
}
