// Flink REST shapes (rest_v1_dispatcher.yml) for the parts the bot reads. The metrics endpoints
// answer a bare JSON array, not the {"metrics": [...]} object the spec describes. Each answer's
// schema is built on its first parse (z.lazy): a command that reads only the jobs overview, as
// most diagnoses do, does not build the rest.

import { z } from "zod";

const JobSchema = z.object({
  jid: z.string(),
  name: z.string(),
  state: z.string(),
  "start-time": z.number().int(),
});

export type Job = z.infer<typeof JobSchema>;

export const JobsOverviewSchema = z.object({ jobs: z.array(JobSchema) });

export const JobDetailsSchema = z.lazy(() =>
  JobSchema.extend({
    vertices: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        parallelism: z.number().int(),
        status: z.string(),
      }),
    ),
  }),
);

const CheckpointStatsSchema = z.lazy(() =>
  z.object({
    id: z.number().int(),
    status: z.string(),
    trigger_timestamp: z.number().int(),
    latest_ack_timestamp: z.number().int().nullish(),
    end_to_end_duration: z.number().int().nullish(),
    failure_message: z.string().nullish(),
  }),
);

export type CheckpointStats = z.infer<typeof CheckpointStatsSchema>;

export const CheckpointingStatisticsSchema = z.lazy(() =>
  z.object({
    counts: z.object({
      restored: z.number().int().default(0),
      total: z.number().int().default(0),
      in_progress: z.number().int().default(0),
      completed: z.number().int().default(0),
      failed: z.number().int().default(0),
    }),
    latest: z
      .object({
        completed: CheckpointStatsSchema.nullish(),
        failed: CheckpointStatsSchema.nullish(),
        restored: z
          .object({
            id: z.number().int(),
            restore_timestamp: z.number().int().nullish(),
            is_savepoint: z.boolean().nullish(),
          })
          .nullish(),
      })
      .nullish(),
    history: z.array(CheckpointStatsSchema).default([]),
  }),
);

export const CheckpointConfigSchema = z.lazy(() =>
  z.object({
    interval: z.number(),
    timeout: z.number().optional(),
    mode: z.string().optional(),
  }),
);

const ExceptionEntrySchema = z.lazy(() =>
  z.object({
    exceptionName: z.string().nullish(),
    stacktrace: z.string().default(""),
    timestamp: z.number().int(),
    taskName: z.string().nullish(),
  }),
);

export const JobExceptionsSchema = z.lazy(() =>
  z.object({
    exceptionHistory: z.object({ entries: z.array(ExceptionEntrySchema).default([]) }).nullish(),
    // Older Flink versions answer with the root exception only.
    "root-exception": z.string().nullish(),
    timestamp: z.number().int().nullish(),
  }),
);

/** GET .../metrics without ?get=: the available ids. */
export const MetricIdsSchema = z.lazy(() => z.array(z.object({ id: z.string() })));

/** GET .../metrics?get=a,b: values as strings. */
export const MetricValuesSchema = z.lazy(() => z.array(z.object({ id: z.string(), value: z.string() })));

/** GET /jobs/{id}/vertices/{vid}/subtasks/metrics?get=...&agg=sum */
export const AggregatedMetricsSchema = z.lazy(() =>
  z.array(z.object({ id: z.string(), sum: z.number().optional(), max: z.number().optional() })),
);

export const BackPressureSchema = z.lazy(() =>
  z.object({
    status: z.string().optional(),
    backpressureLevel: z.string().optional(),
    subtasks: z
      .array(z.object({ subtask: z.number().int().optional(), ratio: z.number().optional() }))
      .default([]),
  }),
);
