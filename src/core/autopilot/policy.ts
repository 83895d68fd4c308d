// BOT_CONFIG's `autopilot:` section: which low-risk steps the bot may apply without waiting for a
// person, on which tables, at which hours and how often. Off unless written; `shadow` applies
// nothing and records what it would have done (docs/autopilot.md). The schemas are built on their
// first parse (z.lazy): a BOT_CONFIG without the section takes its default and never builds them.

import { z } from "zod";
import { STEP_IDS } from "../ids.js";
import type { Playbook } from "../remediation/schema.js";

const Pattern = z.lazy(() =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_*-]+$/, "letters, digits, _, - and * (any run of characters)"),
);

/** One table pattern: every part absent means any. The namespace is dotted (a.b) for nested ones. */
const TablePatternSchema = z.lazy(() =>
  z.strictObject({
    catalog: Pattern.optional(),
    namespace: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_*.-]+$/, "letters, digits, _, -, . and *")
      .optional(),
    name: Pattern.optional(),
  }),
);

/** "HH:MM-HH:MM" in UTC; the end may be before the start (over midnight). */
const HoursSchema = z.lazy(() =>
  z
    .string()
    .regex(
      /^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$/,
      'a UTC window "HH:MM-HH:MM", e.g. "22:00-06:00"',
    ),
);

const StepIdSchema = z.lazy(() =>
  z.enum(STEP_IDS, {
    error: (issue) => `unknown step id ${JSON.stringify(issue.input)}`,
  }),
);

const PolicyLineSchema = z.lazy(() =>
  z.strictObject({
    /** Names the policy in the thread, the audit trail (actor `policy:<name>`) and the metrics. */
    name: z.string().regex(/^[a-z0-9-]{1,40}$/, "a short kebab-case name"),
    tables: z.array(TablePatternSchema).min(1),
    /** Only steps the playbook marks reversible and lowRisk (checked against the playbooks at start). */
    steps: z.array(StepIdSchema).min(1),
    /** When absent: any hour. */
    hours: HoursSchema.optional(),
    /** Autonomous changes per table per UTC day under this policy. */
    perTablePerDay: z.number().int().min(1).max(24).default(1),
  }),
);

export const AutopilotConfigSchema = z.lazy(() =>
  z
    .strictObject({
      mode: z.enum(["off", "shadow", "on"]).default("off"),
      /** Seconds between the announcement and the apply, during which anyone may press Hold. */
      holdOffSeconds: z.number().int().min(0).max(86_400).default(300),
      /** Autonomous changes across every table per hour. */
      fleetPerHour: z.number().int().min(1).max(1000).default(5),
      /** After this many reverts within the window, autopilot stops itself for the fleet. */
      stopAfterReverts: z
        .strictObject({
          count: z.number().int().min(1).max(100).default(3),
          windowMinutes: z.number().int().min(1).max(10_080).default(1440),
        })
        .prefault({}),
      policies: z.array(PolicyLineSchema).default([]),
    })
    .superRefine((config, ctx) => {
      const seen = new Set<string>();
      config.policies.forEach((p, i) => {
        if (seen.has(p.name))
          ctx.addIssue({
            code: "custom",
            path: ["policies", i, "name"],
            message: `duplicate policy ${p.name}`,
          });
        seen.add(p.name);
      });
      if (config.mode !== "off" && config.policies.length === 0)
        ctx.addIssue({
          code: "custom",
          path: ["mode"],
          message: `mode ${config.mode} needs at least one policy`,
        });
    }),
);

export type AutopilotConfig = z.infer<typeof AutopilotConfigSchema>;
export type TablePattern = z.infer<typeof TablePatternSchema>;

/**
 * Steps a policy names that the loaded playbooks do not mark reversible and low risk, as
 * [path, message] for the caller to locate in BOT_CONFIG.
 */
export function policyStepProblems(
  config: AutopilotConfig,
  playbooks: readonly Playbook[],
): Array<{ path: (string | number)[]; message: string }> {
  const steps = new Map(playbooks.flatMap((p) => p.steps.map((s) => [s.id as string, s] as const)));
  const out: Array<{ path: (string | number)[]; message: string }> = [];
  config.policies.forEach((policy, i) => {
    policy.steps.forEach((id, j) => {
      const step = steps.get(id);
      const path = ["autopilot", "policies", i, "steps", j];
      if (!step) out.push({ path, message: `no loaded playbook has step ${id}` });
      else if (!step.reversible || !step.lowRisk)
        out.push({
          path,
          message: `step ${id} is not marked reversible and lowRisk in its playbook; autopilot may not take it`,
        });
    });
  });
  return out;
}

/**
 * The policy's step problems as the lines bot start refuses with and `config check` prints, each
 * with the policy line's file:line (`lines`, by policy name).
 */
export function policyStepLines(
  config: AutopilotConfig,
  playbooks: readonly Playbook[],
  lines: Readonly<Record<string, string>>,
): string[] {
  return policyStepProblems(config, playbooks).map(
    (p) =>
      `BOT_CONFIG: ${p.path.join(".")}: ${p.message} (at ${lines[config.policies[Number(p.path[2])]?.name ?? ""] ?? "BOT_CONFIG"})`,
  );
}
