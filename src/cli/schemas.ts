// The published JSON Schemas are generated from the zod report schemas, so the two cannot drift:
// `iceberg-bot schemas --write docs` regenerates them and a test fails when docs/ is stale.

import { z } from "zod";
import { AuditReportSchema, ReportSchema } from "../core/report/schema.js";

export type JsonSchema = Record<string, unknown>;

export const REPORT_SCHEMA_FILE = "report.schema.json";
export const AUDIT_SCHEMA_FILE = "audit-report.schema.json";

function toPublished(schema: z.ZodType, title: string, description: string): JsonSchema {
  // "output": the shape the bot emits (defaults applied), which is what consumers read.
  const generated = z.toJSONSchema(schema, { io: "output", target: "draft-2020-12" }) as JsonSchema;
  const { $schema, ...rest } = generated;
  return { $schema, title, description, ...rest };
}

/** Both published schemas, keyed by their file name under docs/. */
export function reportJsonSchemas(): Record<string, JsonSchema> {
  return {
    [REPORT_SCHEMA_FILE]: toPublished(
      ReportSchema,
      "iceberg-bot diagnosis report",
      "Output of `iceberg-bot diagnose <table> --format json` (reportVersion 1); also stored with each incident.",
    ),
    [AUDIT_SCHEMA_FILE]: toPublished(
      AuditReportSchema,
      "iceberg-bot audit report",
      "Output of `iceberg-bot audit <table> --format json` (reportVersion 1).",
    ),
  };
}

/** The exact file contents written to docs/ (stable key order, two-space indent, final newline). */
export function renderSchemaFiles(): { file: string; text: string }[] {
  return Object.entries(reportJsonSchemas()).map(([file, schema]) => ({
    file,
    text: `${JSON.stringify(schema, null, 2)}\n`,
  }));
}
