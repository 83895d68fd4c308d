// The `sweep` section of BOT_CONFIG: when the whole catalog is swept, where the digest goes, and
// how hard each source may be asked. Defaults suit a catalog of a few thousand tables.

import { z } from "zod";
import { type BudgetLimits, DEFAULT_BUDGET } from "./budget.js";

/** Five-field cron (minute hour day-of-month month day-of-week); BullMQ's scheduler reads it. */
const CRON = /^(\S+\s+){4}\S+$/;

export const SweepConfigSchema = z.object({
  /** Cron pattern in UTC; default Monday 06:00. Empty string turns the schedule off. */
  schedule: z
    .string()
    .trim()
    .refine((v) => v === "" || CRON.test(v), "a five-field cron pattern, e.g. '0 6 * * 1'")
    .default("0 6 * * 1"),
  /** Channel for the digest; default: defaults.channel, then INCIDENT_CHANNEL. */
  channel: z.string().optional(),
  /** Requests per second the sweep may send to each source, across all workers. */
  ratePerSecond: z
    .object({
      catalog: z.number().positive().max(10_000).default(20),
      flink: z.number().positive().max(10_000).default(10),
      connect: z.number().positive().max(10_000).default(10),
    })
    .prefault({}),
  /**
   * What one sweep may spend before it stops and posts what it has (a partial digest naming
   * what was skipped and why). Bounds a catalog that loops or pages forever.
   */
  budget: z
    .object({
      requests: z.number().int().min(1).max(10_000_000).default(DEFAULT_BUDGET.requests),
      namespaces: z.number().int().min(1).max(1_000_000).default(DEFAULT_BUDGET.namespaces),
      tables: z.number().int().min(1).max(10_000_000).default(DEFAULT_BUDGET.tables),
      minutes: z
        .number()
        .positive()
        .max(24 * 60)
        .default(DEFAULT_BUDGET.timeMs / 60_000),
      pagesPerListing: z.number().int().min(1).max(1_000_000).default(DEFAULT_BUDGET.pagesPerListing),
    })
    .prefault({}),
  /** How many of the worst tables the digest lists. */
  worst: z.number().int().min(1).max(20).default(10),
  /** Tables (worst first) exposed on /metrics; bounds the series count (see docs/sweep.md). */
  metricsTables: z.number().int().min(0).max(5_000).default(500),
  /** Only namespaces under these prefixes are swept (e.g. ["analytics"]); default: all. */
  namespaces: z.array(z.string()).default([]),
  /** Named catalogs to sweep (BOT_CONFIG sources.catalogs); default: every catalog not marked sweep: false. */
  catalogs: z.array(z.string()).default([]),
});

export type SweepConfig = z.infer<typeof SweepConfigSchema>;

export const DEFAULT_SWEEP_CONFIG: SweepConfig = SweepConfigSchema.parse({});

/** The budget section as limits a walk counts against. */
export function budgetLimits({ budget: { minutes, ...counts } }: SweepConfig): BudgetLimits {
  return { ...counts, timeMs: minutes * 60_000 };
}
