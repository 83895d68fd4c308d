// `iceberg-bot demo [scenario]`: a whole incident against the simulated lakehouse, with the real
// bot (HTTP mode, workers, Redis) and the Slack stand-in, printed as the thread people would read.
// After the diagnosis it walks the playbook as people would: approves what the bot can apply (two
// people for risky steps), plays steps done by hand, asks for the next step when one did not help,
// and asks for the audit when there is nothing to do.

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve as resolvePath } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { loadPlaybooks } from "../adapters/playbooks/files.js";
import type { RedisClient } from "../adapters/redis/connection.js";
import { AutopilotStore } from "../adapters/store/autopilot-store.js";
import { type Env, loadConfig } from "../config.js";
import type { Refusal } from "../core/autopilot/decide.js";
import type { PlaybookSet } from "../core/remediation/schema.js";
import { refusalWords } from "../core/words/autopilot.js";
import { startBot } from "../main.js";
import { alertmanagerBody } from "../sim/alertmanager.js";
import { type Lakehouse, startLakehouse } from "../sim/lakehouse.js";
import type { Scenario } from "../sim/scenario/schema.js";
import { loadScenario } from "../sim/scenarios.js";
import { redisAnswers, startPrivateRedis } from "../sim/servers/redis-server.js";
import {
  approveStep,
  findButton,
  pressButton,
  type SlackPerson,
  sendSlashCommand,
} from "../sim/slack/person.js";
import { startSlackStandIn } from "../sim/slack/stand-in.js";
import { mrkdwnToPlain, transcript } from "../sim/slack/transcript.js";
import type { SlackStandIn, StoredMessage } from "../sim/slack/types.js";
import { DEFAULT_SCENARIO } from "./commands/sim-command.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import type { CliIo } from "./io.js";
import { SOURCE_URL_VARIABLES } from "./role-check.js";

export interface DemoOptions extends Pick<CliIo, "stdout" | "env"> {
  scenario?: string;
  /** Real time between follow-up checks (default 500 ms, not BOT_CONFIG's five minutes; tests go faster). */
  followUpIntervalMs?: number;
  /**
   * Autopilot (docs/autopilot.md): "on" lets it apply the low-risk steps after a short hold-off,
   * "hold" has a person press Hold and approve by hand, "shadow" only records what it would do;
   * "off-hours" and "budget-spent" show it refusing by its hours and by the fleet's budget.
   */
  autopilot?: DemoAutopilot;
  /** Where the thread's pictures are written (default: a new directory under the system temp dir). */
  outDir?: string;
  /** Called once the thread is printed, before the world stops: tests read what it ended as. */
  onEnd?: (end: DemoEnd) => void | Promise<void>;
  /**
   * Called at every point where the bot has finished its work and the thread waits (after the
   * diagnosis, after each proposal, approval and the checks that follow, at the end): tests read
   * every surface there and hold them to one story.
   */
  onMoment?: (moment: DemoMoment) => void | Promise<void>;
}

/** One such point: what it follows, and the world as it stands. */
export interface DemoMoment extends DemoEnd {
  label: string;
  /** The thread as it is now (a check may land while a test reads the other surfaces). */
  readThread: () => StoredMessage[];
  /** Resolves once the bot has done all it has to do for now (its queues and outbox empty). */
  settle: () => Promise<void>;
}

/** The end of a demo: the thread as posted and the simulated lakehouse that produced it. */
export type DemoEnd = ReturnType<typeof worldEnd>;

export const DEMO_AUTOPILOT = ["on", "hold", "shadow", "off-hours", "budget-spent"] as const;
export type DemoAutopilot = (typeof DEMO_AUTOPILOT)[number];

/**
 * The demo's policy: every table, the steps the playbook marks reversible and low risk.
 * "off-hours" allows changes only in an hour three hours from the demo's clock; "budget-spent"
 * allows one change an hour across the fleet, spent on another table before the alert.
 */
function autopilotConfig(mode: DemoAutopilot, playbooks: PlaybookSet, nowMs: number): string {
  const steps = playbooks.playbooks.flatMap((p) =>
    p.steps.filter((s) => s.reversible && s.lowRisk).map((s) => s.id),
  );
  const hh = (n: number) => String((new Date(nowMs).getUTCHours() + n) % 24).padStart(2, "0");
  // "on" waits two seconds so the announcement and its Hold button show; "hold" waits an hour.
  return `autopilot:
  mode: ${mode === "shadow" ? "shadow" : "on"}
  holdOffSeconds: ${mode === "hold" ? 3600 : 2}
${mode === "budget-spent" ? "  fleetPerHour: 1\n" : ""}  policies:
    - name: demo-low-risk
      tables: [{}]
      steps: [${steps.join(", ")}]
${mode === "off-hours" ? `      hours: "${hh(3)}:00-${hh(4)}:00"\n` : ""}`;
}

/** "budget-spent": the fleet's one autonomous change this hour, made on another table. */
async function spendFleetBudget(ctx: DemoContext): Promise<void> {
  const { bot, namespace } = ctx.sim!;
  const atMs = ctx.lakehouse!.clock.now() - 10 * 60_000;
  await new AutopilotStore(bot.redis, namespace).recordChange("demo.elsewhere", "earlier|p1", atMs);
  progress(
    ctx,
    "autopilot already made the fleet's one change this hour, on another table (fleetPerHour: 1)",
  );
}

const DEMO_CHANNEL = "C0DEMO";
/** The on-call engineer who approves steps in the demo. */
export const DEMO_APPROVER = "U0DEMOONCALL";
/** A second approver: risky steps need two people. */
const DEMO_SECOND_APPROVER = "U0DEMOLEAD";
/** Simulated time that passes after a change, so the writer's next commits can land. */
const SIMULATED_WAIT_MS = 6 * 60_000;
/** Proposals, approvals and follow-ups one demo plays through at most (a loop guard). */
const MAX_ROUNDS = 6;

interface DemoContext {
  options: DemoOptions;
  scenarioTable: string;
  writerJobName?: string;
  redisUrl: string;
  lakehouse?: Lakehouse;
  standIn?: SlackStandIn;
  sim?: SimBot;
  rootTs?: string;
  playbooks: PlaybookSet;
  step: number;
  cleanups: Array<() => Promise<void>>;
}

const say = (ctx: DemoContext, line: string) => ctx.options.stdout.write(`${line}\n`);
/** One progress line, numbered in the order things happen (the path depends on the scenario). */
const progress = (ctx: DemoContext, line: string) => say(ctx, `[${++ctx.step}] ${line}`);

async function startWorld(ctx: DemoContext, scenario: Scenario): Promise<void> {
  progress(
    ctx,
    "start the simulated lakehouse (catalog, Flink, Kafka Connect, Prometheus) and the Slack stand-in",
  );
  const lakehouse = await startLakehouse({ scenario });
  ctx.lakehouse = lakehouse;
  ctx.cleanups.push(() => lakehouse.close());
  const standIn = await startSlackStandIn();
  ctx.standIn = standIn;
  ctx.cleanups.push(() => standIn.close());

  progress(ctx, "start the bot (HTTP mode) and its workers");
  const writer = ctx.writerJobName ? `\n    flinkJobName: ${ctx.writerJobName}` : "";
  const followUpMs = ctx.options.followUpIntervalMs ?? 500;
  const { autopilot } = ctx.options;
  const sim = await startSimBot({
    name: "demo",
    lakehouse,
    standIn,
    redisUrl: ctx.redisUrl,
    env: ctx.options.env,
    channel: DEMO_CHANNEL,
    botConfig: (platform) =>
      `defaults:\n  approvers: [${DEMO_APPROVER}, ${DEMO_SECOND_APPROVER}]\n  followUp: { intervalSeconds: 300, checks: 6 }\ntables:\n  ${ctx.scenarioTable}:${writer || " {}"}\n${platform}\n${autopilot ? autopilotConfig(autopilot, ctx.playbooks, lakehouse.clock.now()) : ""}`,
    followUpIntervalMs: followUpMs,
  });
  ctx.sim = sim;
  say(
    ctx,
    `    follow-up checks every ${followUpMs / 1000} s here, up to 6 of them (a real install checks every few minutes: followUp.intervalSeconds in BOT_CONFIG)`,
  );
  ctx.cleanups.push(() => sim.stop());
}

async function fireAlert(ctx: DemoContext): Promise<void> {
  progress(ctx, `fire an Alertmanager alert (IcebergCommitStalled) for ${ctx.scenarioTable}`);
  const response = await ctx.sim!.fireAlert(ctx.scenarioTable, ctx.writerJobName);
  if (response.status !== 202)
    throw new Error(`the webhook answered ${response.status}: ${await response.text()}`);
}

/** Waits for the diagnosis reply; returns its text (mrkdwn) so the caller can read the next step. */
async function awaitDiagnosis(ctx: DemoContext): Promise<string> {
  progress(ctx, "the bot opens an incident thread and diagnoses the table from the lakehouse's evidence");
  const standIn = ctx.standIn!;
  return until(() => {
    const root = standIn.messages(DEMO_CHANNEL).find((m) => !m.thread_ts && !m.ephemeralUser);
    if (!root) return undefined;
    ctx.rootTs = root.ts;
    return standIn
      .thread(DEMO_CHANNEL, root.ts)
      .map(messageMrkdwn)
      .find((text) => text.includes("Next step"));
  }, "the diagnosis");
}

/** Nothing to change: the demo asks for the audit instead, the way a person would. */
async function showAudit(ctx: DemoContext, diagnosis: string): Promise<void> {
  // The diagnosis says why nothing needs doing (committing normally, quiet as expected, ...).
  const why =
    /Next step:\*? none; ([^.\n]*)\./.exec(diagnosis)?.[1] ?? "no playbook step matches the findings";
  progress(ctx, `nothing to do: ${why}; no step is proposed`);
  // The audit reads the table from the catalog: with the catalog refusing or failing the bot's
  // reads for the whole demo there is nothing to grade, so a person would not ask for it.
  if (/Could not read:\*? Iceberg REST catalog/.test(diagnosis)) {
    progress(ctx, "the catalog cannot be read, so there is no audit to ask for; the thread says why");
    return;
  }
  progress(
    ctx,
    `<@${DEMO_APPROVER}> types \`/iceberg audit ${ctx.scenarioTable}\` (a signed slash command into Bolt)`,
  );
  await sendSlashCommand(ctx.sim!.person(DEMO_APPROVER), "/iceberg", `audit ${ctx.scenarioTable}`);
  // Waits for the audit itself: the diagnosis picture may still be arriving in the thread.
  await until(() => thread(ctx).some((m) => JSON.stringify(m.blocks).includes("Audit of")), "the audit");
  progress(ctx, "the audit of the concurrent-writers checklist arrives in the thread");
}

type Decision =
  | { kind: "resolved" | "stalled" | "stopped" }
  | { kind: "open-item"; text: string }
  | { kind: "apply" | "done" | "next" | "checking"; message: StoredMessage };

/** What the thread asks for now, or undefined while the bot is still at work. */
function decisionPoint(ctx: DemoContext, handled: Set<string>): Decision | undefined {
  const standIn = ctx.standIn!;
  const root = thread(ctx)[0];
  const state = /\((resolved|stalled|stopped)\)\s*$/.exec(root?.text ?? "")?.[1];
  if (state) return { kind: state as "resolved" | "stalled" | "stopped" };
  if (root && /\(resolved with \d+ open items?\)\s*$/.test(root.text ?? "")) {
    const item = /\*Still open:\* ([^\n]+)/.exec(messageMrkdwn(root))?.[1] ?? "what the report left open";
    const key = `${root.ts}:item:${item}`;
    if (!handled.has(key)) {
      handled.add(key);
      return { kind: "open-item", text: mrkdwnToPlain(item) };
    }
    return undefined;
  }
  // The person acts on the proposal; the card's copy of its button (which may arrive first) waits.
  const open = (kind: string) => {
    const found = findButton(standIn, DEMO_CHANNEL, ctx.rootTs!, `playbook_${kind}`);
    if (!found || found.message.ts === ctx.rootTs) return undefined;
    return !handled.has(`${found.message.ts}:${found.button.value ?? ""}`) ? found : undefined;
  };
  for (const kind of ["next", "apply", "done"] as const) {
    const found = open(kind);
    if (found) return { kind, message: found.message };
  }
  // A read-only check needs nobody: the bot starts checking the moment it proposes it, so its
  // proposal offers only Skip and Stop.
  const skip = open("skip");
  return skip && readOnlyStep(ctx, skip.button.value)
    ? { kind: "checking", message: skip.message }
    : undefined;
}

function readOnlyStep(ctx: DemoContext, value: string | undefined): boolean {
  let stepId: unknown;
  try {
    stepId = (JSON.parse(value ?? "{}") as { stepId?: unknown }).stepId;
  } catch {
    return false;
  }
  return ctx.playbooks.playbooks.some((p) =>
    p.steps.some((s) => s.id === stepId && s.changes.some((c) => c.kind === "read-only-check")),
  );
}

function markHandled(ctx: DemoContext, handled: Set<string>, kind: string): void {
  const found = findButton(ctx.standIn!, DEMO_CHANNEL, ctx.rootTs!, `playbook_${kind}`);
  if (found) handled.add(`${found.message.ts}:${found.button.value ?? ""}`);
}

/** Approves the proposed step; a risky step gets its second approver too. */
async function approve(ctx: DemoContext, message: StoredMessage): Promise<void> {
  const title = stepTitle(message);
  const requestsBefore = ctx.lakehouse!.requests.length;
  progress(
    ctx,
    `<@${DEMO_APPROVER}> presses Apply and submits the approval form (signed requests into Bolt)`,
  );
  await approveStep(ctx.sim!.person(DEMO_APPROVER), ctx.rootTs!, approvalReason(ctx, title), true);
  await until(
    () => latestStepText(ctx).match(/\(1 of 2\)|Applying|Applied|Nothing was changed|It is not known/),
    "the approval",
  );
  const approved = latestStepText(ctx);
  if (/\(1 of 2\)/.test(approved) && !/Applied (by|at)/.test(approved)) {
    progress(
      ctx,
      `the step is risky and needs a second person: <@${DEMO_SECOND_APPROVER}> approves it too, ticking the confirmation`,
    );
    await approveStep(
      ctx.sim!.person(DEMO_SECOND_APPROVER),
      ctx.rootTs!,
      `Second approval: checked that "${title}" is safe for ${ctx.scenarioTable} before it is applied`,
      true,
    );
  }
  await until(
    () => /Applied (by|at)|Nothing was changed|It is not known/.test(latestStepText(ctx)),
    "the change to be applied",
  );
  const applied = latestStepText(ctx);
  if (/Nothing was changed|It is not known/.test(applied) && !/Applied (by|at)/.test(applied))
    throw new Error("the bot could not apply the change (see the thread)");
  progress(ctx, `the bot makes the change: ${describeWrites(ctx, requestsBefore)}`);
}

/**
 * With autopilot on, a step it announced: nobody holds it and it applies the step itself ("on"),
 * or a person presses Hold and approves by hand ("hold"). False when it did not announce one.
 */
async function autopilotTakes(ctx: DemoContext): Promise<boolean> {
  const mode = ctx.options.autopilot;
  if (mode === undefined || mode === "shadow") return false;
  const requestsBefore = ctx.lakehouse!.requests.length;
  // The announcement follows its proposal in the same job.
  await settled(ctx);
  // Edited once it applied: its words say so then, without Hold.
  const announcement = thread(ctx).findLast(
    (m) =>
      JSON.stringify(m.blocks ?? []).includes("autopilot_hold") || /^Autopilot applied/.test(m.text ?? ""),
  );
  if (!announcement) {
    const why = await recordedRefusal(ctx.sim!.bot.redis, ctx.sim!.namespace);
    progress(ctx, `autopilot leaves this step to people: ${why ?? "no policy line allows it"}`);
    return false;
  }
  // Its first words: on a busy machine the hold-off may end, and the message be edited, before this reads it.
  const announced = announcement.versions[0]?.text ?? announcement.text;
  progress(ctx, `autopilot announces in the thread: ${mrkdwnToPlain(announced ?? "")}`);
  if (mode === "hold") {
    progress(ctx, `<@${DEMO_APPROVER}> presses Hold: the step goes back to people`);
    await press(ctx, "autopilot_hold");
    await until(() => thread(ctx).some((m) => /^Held:/.test(m.text ?? "")), "the hold");
    return false;
  }
  progress(
    ctx,
    "nobody presses Hold; when the hold-off ends autopilot approves the step as policy:demo-low-risk",
  );
  await until(() => /Applied (by|at)/.test(latestStepText(ctx)), "autopilot's change");
  progress(
    ctx,
    `the bot makes the change through the same path as a person's approval: ${describeWrites(ctx, requestsBefore)}`,
  );
  return true;
}

/** Why autopilot did not act, as it recorded it; undefined when it recorded no refusal. */
export async function recordedRefusal(redis: RedisClient, namespace: string): Promise<string | undefined> {
  const key = (await redis.keys(`{${namespace}}:autopilot:refused:*`))[0];
  const refusal = key ? (JSON.parse((await redis.get(key)) ?? "{}") as Refusal) : undefined;
  return refusal?.kind ? refusalWords(refusal) : undefined;
}

/** The on-call engineer presses a button in the thread. */
const press = (ctx: DemoContext, actionId: string) =>
  pressButton(ctx.sim!.person(DEMO_APPROVER), ctx.rootTs!, actionId);

/** Until the bot has done all it has to do for now (its queues and outbox empty). */
const settled = (ctx: DemoContext, what = "the bot to settle") =>
  until(async () => (await ctx.sim!.bot.quiet()) && (await ctx.sim!.bot.quiet()), what);

/** A step the bot cannot make: print what a person would do, play it in the simulator, press Done. */
async function doByHand(ctx: DemoContext, message: StoredMessage): Promise<void> {
  progress(ctx, `the step is one a person carries out by hand: ${stepTitle(message)}`);
  for (const line of byHandLines(message)) say(ctx, `      ${line}`);
  const fixed = ctx.lakehouse!.fixByHand(ctx.scenarioTable);
  progress(
    ctx,
    fixed > 0
      ? `the simulator plays that person's work: the failing writer of ${ctx.scenarioTable} is fixed`
      : `the simulator has no failing writer to fix on ${ctx.scenarioTable}`,
  );
  progress(ctx, `<@${DEMO_APPROVER}> presses Done by hand`);
  await press(ctx, "playbook_done");
  await until(() => /Done by hand by/.test(latestStepText(ctx)), "the step to be marked done");
}

async function walkPlaybook(ctx: DemoContext): Promise<void> {
  const handled = new Set<string>();
  // Read-only checks announced; one that answered before the demo looked is announced late.
  const announced = new Set<string>();
  const announceCheck = (message: StoredMessage) => {
    if (announced.has(message.ts)) return;
    announced.add(message.ts);
    progress(
      ctx,
      `the bot proposes: ${stepTitle(message)}; it only reads the table, so the bot starts checking at once, without approval`,
    );
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const decision = await until(() => decisionPoint(ctx, handled), "the bot's next move");
    await moment(ctx, `waiting: ${decision.kind}`);
    switch (decision.kind) {
      case "resolved":
        progress(ctx, "the writer commits again: the bot resolves the incident and edits the card");
        return;
      case "stalled":
        progress(
          ctx,
          // The last check could not read the table: the card says so.
          /the bot could not check the table/.test(messageMrkdwn(thread(ctx)[0]!))
            ? "the bot could not read the table's snapshots, so whether the last commit landed is unknown: nothing is restarted or changed, and the incident waits for a person (stalled)"
            : "the playbook has no further step: the incident waits for a person (stalled)",
        );
        return;
      case "stopped":
        progress(ctx, "the playbook was stopped");
        return;
      case "open-item":
        progress(
          ctx,
          `the writer commits again, but the report left something to do: the card says "resolved with 1 open item" (${decision.text})`,
        );
        progress(ctx, `<@${DEMO_APPROVER}> does it and presses Mark done on the card`);
        await press(ctx, "incident_item_done");
        break;
      case "next": {
        markHandled(ctx, handled, "next");
        // Autopilot reverts its own change once its checks end: that, not a person, comes first.
        if (ctx.options.autopilot === "on") await settled(ctx);
        if (thread(ctx).some((m) => /^Autopilot reverted/.test(m.text ?? ""))) {
          progress(
            ctx,
            "the writer did not recover: autopilot reverts its change (one more catalog commit), says so, and proposes the next step for a person",
          );
          break;
        }
        const checked = /\*Checked:\*/.test(messageMrkdwn(decision.message));
        const check = checked
          ? thread(ctx).findLast((m) => /checks this itself/.test(messageMrkdwn(m)))
          : undefined;
        if (check) announceCheck(check);
        progress(
          ctx,
          checked
            ? `the check has answered (it changes nothing, so there is nothing to recover from); <@${DEMO_APPROVER}> asks for the next step`
            : `the step did not help; <@${DEMO_APPROVER}> asks for the next step the playbook offers`,
        );
        await press(ctx, "playbook_next");
        break;
      }
      case "checking":
        markHandled(ctx, handled, "skip");
        announceCheck(decision.message);
        break;
      case "apply":
      case "done":
        // An applicable step's proposal offers Done too.
        markHandled(ctx, handled, decision.kind);
        markHandled(ctx, handled, "done");
        progress(ctx, `the bot proposes: ${stepTitle(decision.message)}`);
        if (decision.kind === "done") {
          await doByHand(ctx, decision.message);
          await moment(ctx, "done by hand");
        } else if (await autopilotTakes(ctx)) await moment(ctx, "applied by autopilot");
        else {
          await approve(ctx, decision.message);
          await moment(ctx, "approved");
        }
        // Time moves only once the bot has recorded the change, so the writer's next snapshot is after it.
        ctx.lakehouse!.advance(SIMULATED_WAIT_MS);
        progress(
          ctx,
          "six simulated minutes pass; the bot's follow-up checks look for the writer's new commits",
        );
        break;
    }
  }
  throw new Error(`the playbook did not finish within ${MAX_ROUNDS} steps`);
}

/** The world as it stands once the bot is idle, for a test to read (nothing without onMoment). */
async function moment(ctx: DemoContext, label: string): Promise<void> {
  if (!ctx.options.onMoment) return;
  const settle = () => settled(ctx).then(() => {});
  await settle();
  await ctx.options.onMoment({
    label,
    ...worldEnd(ctx),
    readThread: () => thread(ctx),
    settle,
  });
}

function worldEnd(ctx: DemoContext) {
  return {
    thread: thread(ctx),
    lakehouse: ctx.lakehouse!,
    /** Where the bot kept its data (deleted once the demo ends): benchmarks measure it. */
    redisUrl: ctx.redisUrl,
    namespace: ctx.sim!.namespace,
    /** The incidents' clock. */
    now: () => ctx.lakehouse!.clock.now(),
    /** The postmortem canvases the bot made (markdown as Slack received it). */
    canvases: ctx.standIn!.canvases(),
  };
}

/**
 * Polls `probe` until it answers something truthy, and returns that, within the demo's time
 * budget (30 s for each thing the bot does).
 */
async function until<T>(probe: () => T | Promise<T>, what: string): Promise<NonNullable<T>> {
  const deadline = Date.now() + 30_000;
  for (let answer = await probe(); ; answer = await probe()) {
    if (answer) return answer;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Ok when done, Usage when it cannot run (no Redis), NeedsAction when the demo failed. */
export async function runDemo(options: DemoOptions): Promise<ExitCodeValue> {
  const scenario = loadScenario(options.scenario ?? DEFAULT_SCENARIO);
  const ctx: DemoContext = {
    options,
    scenarioTable: scenario.table,
    writerJobName: scenario.flink?.jobs[0]?.name,
    redisUrl: options.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    playbooks: await loadPlaybooks(),
    step: 0,
    cleanups: [],
  };
  try {
    // REDIS_URL when it answers; otherwise a private, non-persistent redis-server.
    const redis = await ensureRedis(ctx.redisUrl, options.env, (line) => say(ctx, line));
    if (!redis) {
      say(ctx, `No Redis answers at ${ctx.redisUrl}, and redis-server is not on PATH.`);
      say(ctx, "Start one with `docker compose up -d redis` (or set REDIS_URL), then run the demo again.");
      return ExitCode.Usage;
    }
    ctx.redisUrl = redis.url;
    if (redis.stop) ctx.cleanups.push(redis.stop);
    say(ctx, `Demo: scenario ${scenario.name}, table ${scenario.table}`);
    await startWorld(ctx, scenario);
    if (ctx.options.autopilot === "budget-spent") await spendFleetBudget(ctx);
    await fireAlert(ctx);
    const diagnosis = await awaitDiagnosis(ctx);
    await moment(ctx, "diagnosis");
    if (/Next step:\*? (none|no playbook step)/.test(diagnosis)) await showAudit(ctx, diagnosis);
    else await walkPlaybook(ctx);
    // The last edits and the picture after recovery land before the thread is printed.
    await settled(ctx, "the bot to finish");
    progress(ctx, "print the thread");
    const { pictures, postmortem } = writeThreadFiles(ctx);
    say(ctx, "");
    say(
      ctx,
      transcript(ctx.standIn!, DEMO_CHANNEL, ctx.rootTs!, { fileLocation: (f) => pictures.get(f.id) }),
    );
    const written = [...pictures.values()];
    if (written.length > 0) {
      say(ctx, `Commit timeline ${written.length === 1 ? "picture" : "pictures"} of this thread:`);
      for (const path of written) say(ctx, `  ${path}`);
    }
    if (postmortem) say(ctx, `The postmortem draft (the canvas the bot made):\n  ${postmortem}`);
    say(ctx, "");
    await moment(ctx, "end");
    await options.onEnd?.(worldEnd(ctx));
    return ExitCode.Ok;
  } catch (error) {
    say(ctx, `The demo stopped: ${(error as Error).message}`);
    if (ctx.standIn && ctx.rootTs) {
      say(ctx, "The thread so far:");
      say(ctx, transcript(ctx.standIn, DEMO_CHANNEL, ctx.rootTs));
    }
    return ExitCode.NeedsAction;
  } finally {
    for (const cleanup of ctx.cleanups.reverse()) await cleanup().catch(() => {});
  }
}

/** Writes every picture the bot shared in the thread (file id -> path) and its postmortem canvas. */
function writeThreadFiles(ctx: DemoContext): { pictures: Map<string, string>; postmortem?: string } {
  const pictures = new Map<string, string>();
  const files = ctx.standIn!.files().filter((f) => f.bytes !== undefined && f.shares.length > 0);
  const canvas = ctx.standIn!.canvases().at(-1);
  if (files.length === 0 && !canvas) return { pictures };
  const dir = ctx.options.outDir ?? mkdtempSync(join(tmpdir(), "iceberg-bot-demo-"));
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    const path = resolvePath(dir, basename(file.name));
    writeFileSync(path, file.bytes!);
    pictures.set(file.id, path);
  }
  if (!canvas) return { pictures };
  const postmortem = resolvePath(dir, `${ctx.scenarioTable}-postmortem.md`);
  writeFileSync(postmortem, canvas.markdown);
  return { pictures, postmortem };
}

// --- reading the thread ------------------------------------------------------------------------

/** The mrkdwn of a message: its text plus every section, context and header text. */
function messageMrkdwn(message: StoredMessage): string {
  const parts = [message.text];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object") {
      const obj = value as Record<string, unknown>;
      if (typeof obj.text === "string" && obj.type !== "button") parts.push(obj.text);
      for (const [key, child] of Object.entries(obj))
        if (key !== "text" || typeof child !== "string") visit(child);
    }
  };
  visit(message.blocks);
  return parts.join("\n");
}

/** The incident's thread, its root first. */
const thread = (ctx: DemoContext) => ctx.standIn!.thread(DEMO_CHANNEL, ctx.rootTs!);

function latestStepText(ctx: DemoContext): string {
  const step = [...thread(ctx)].reverse().find((m) => /Step \d+/.test(messageMrkdwn(m)));
  return step ? messageMrkdwn(step) : "";
}

/** "Give the writer a larger commit retry budget": the line under the proposal's heading. */
function stepTitle(message: StoredMessage): string {
  const lines = messageMrkdwn(message)
    .split("\n")
    .map((l) => l.trim());
  const heading = lines.findIndex((l) => /Step \d+/.test(l));
  const title = lines.slice(heading + 1).find((l) => l.length > 0 && !/Step \d+/.test(l));
  return mrkdwnToPlain(title ?? "the proposed step").replace(/\.$/, "");
}

/** What a person would run: the statements and checklist of a by-hand step. */
function byHandLines(message: StoredMessage): string[] {
  const text = messageMrkdwn(message);
  const lines: string[] = [];
  for (const block of text.matchAll(/```([\s\S]*?)```/g)) {
    lines.push(...(block[1] ?? "").split("\n").filter((l) => l.trim().length > 0));
  }
  for (const line of text.split("\n")) {
    if (/^\s*(•|\d+\.|☐|-)\s/.test(line)) lines.push(mrkdwnToPlain(line.trim()));
  }
  return [...new Set(lines)];
}

/** The approval reason a person would write: what the diagnosis found, and what this step does. */
function approvalReason(ctx: DemoContext, title: string): string {
  const root = thread(ctx)[0];
  const cause = /\*Cause:\*\s*([^\n]+)/.exec(root ? messageMrkdwn(root) : "")?.[1];
  const verdict = /\*Verdict:\*\s*([^\n]+)/.exec(root ? messageMrkdwn(root) : "")?.[1];
  const finding = mrkdwnToPlain(cause ?? verdict ?? `the diagnosis of ${ctx.scenarioTable}`);
  // Short, as people write them: the finding without its parenthesis, then the step.
  const reason = `${finding.replace(/\s*\([^)]*\)/g, "").replace(/\.$/, "")}. ${title}.`;
  return reason.length > 480 ? `${reason.slice(0, 479)}…` : reason;
}

/** The lakehouse writes since request `before` (reads and token fetches left out), as a person says them. */
function describeWrites(ctx: DemoContext, before: number): string {
  const writes = ctx
    .lakehouse!.requests.slice(before)
    .filter((r) => r.method !== "GET" && !r.path.includes("/oauth/"));
  if (writes.length === 0) return "nothing needed writing in the lakehouse";
  return writes
    .map((w) => {
      if (w.service === "catalog")
        return `commits the table properties through the catalog (${w.method} ${w.path})`;
      if (w.service === "connect" && /\/restart/.test(w.path))
        return `restarts the connector's failed tasks (${w.method} ${w.path})`;
      if (w.service === "connect" && /\/config/.test(w.path))
        return `updates the connector's configuration (${w.method} ${w.path})`;
      return `${w.method} ${w.path} on ${w.service}`;
    })
    .join("; ");
}

/**
 * A Redis for the demo and `dev`: `url` when it answers, else a private non-persistent
 * redis-server on a free port (stopped by `stop`), else undefined when redis-server is not on PATH.
 */
export async function ensureRedis(
  url: string,
  env: Env,
  say: (line: string) => void,
): Promise<{ url: string; stop?: () => Promise<void> } | undefined> {
  if (await redisAnswers(url)) return { url };
  // PATH comes from the injected environment, like every other setting.
  const childEnv = { PATH: env.PATH ?? "" };
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore", env: childEnv }).status !== 0)
    return undefined;
  try {
    const redis = await startPrivateRedis({ env: childEnv });
    say(`Started a private redis-server on port ${redis.port}.`);
    return { url: redis.url, stop: redis.stop };
  } catch {
    return undefined;
  }
}

/** A bot (HTTP mode, with its workers) against a simulated lakehouse and the Slack stand-in. */
export type SimBot = Awaited<ReturnType<typeof startSimBot>>;

/**
 * Starts the bot for `demo` and `dev` in a namespace of its own. `botConfig` writes BOT_CONFIG
 * around the lakehouse's own (a many-cluster scenario brings its sources there instead of the
 * four URLs).
 */
export async function startSimBot(world: {
  name: string;
  lakehouse: Lakehouse;
  standIn: SlackStandIn;
  redisUrl: string;
  env: Env;
  channel: string;
  botConfig: (platform: string) => string;
  followUpIntervalMs: number;
}) {
  const { lakehouse, redisUrl } = world;
  const now = () => lakehouse.clock.now();
  const signingSecret = randomBytes(16).toString("hex");
  const webhookToken = randomBytes(16).toString("hex");
  const namespace = `iceberg-bot-${world.name}-${randomBytes(4).toString("hex")}`;
  const platform = lakehouse.env();
  const sources = platform.BOT_CONFIG
    ? platform
    : Object.fromEntries(
        Object.entries(SOURCE_URL_VARIABLES).map(([kind, name]) => [
          name,
          lakehouse.urls[kind as keyof typeof SOURCE_URL_VARIABLES],
        ]),
      );
  const config = loadConfig({
    SLACK_BOT_TOKEN: "xoxb-stand-in",
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: world.standIn.apiUrl,
    REDIS_URL: redisUrl,
    ...sources,
    ALERT_WEBHOOK_TOKEN: webhookToken,
    INCIDENT_CHANNEL: world.channel,
    BOT_CONFIG: world.botConfig(platform.BOT_CONFIG ?? ""),
    PORT: "0",
    LOG_LEVEL: world.env.LOG_LEVEL ?? "silent",
  });
  const bot = await startBot(config, {
    namespace,
    queuePrefix: `{${namespace}}`,
    now,
    remediation: { followUpIntervalMs: world.followUpIntervalMs },
  });
  return {
    bot,
    /** Its Redis keys and BullMQ prefix (deleted by `stop`). */
    namespace,
    /** `user` in the channel, whose signed requests go into the bot as Slack's would. */
    person: (user: string): SlackPerson => ({
      botUrl: `http://127.0.0.1:${bot.port}/slack/events`,
      signingSecret,
      standIn: world.standIn,
      channel: world.channel,
      user,
    }),
    /** An Alertmanager alert for `table` into the bot's webhook. */
    fireAlert: (table: string, jobName: string | undefined) =>
      fetch(`http://127.0.0.1:${bot.port}/webhooks/alertmanager`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${webhookToken}` },
        body: alertBody(table, jobName, now()),
      }),
    async stop() {
      await bot.queues.obliterate().catch(() => {});
      await bot.stop().catch(() => {});
      await deleteNamespace(redisUrl, namespace).catch(() => {});
    },
  };
}

export async function deleteNamespace(url: string, namespace: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `{${namespace}}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== "0");
  } finally {
    await client.quit().catch(() => {});
  }
}

export function alertBody(table: string, jobName: string | undefined, nowMs: number): string {
  return alertmanagerBody(
    [
      {
        table,
        ...(jobName ? { labels: { job_name: jobName } } : {}),
        annotations: { description: "elapsedSecondsSinceLastSuccessfulCommit is above 3600" },
        startsAtMs: nowMs - 5 * 60_000,
        // A fresh fingerprint each time: the demo's second alert is a new one, not a repeat.
        fingerprint: randomBytes(8).toString("hex"),
      },
    ],
    nowMs,
  );
}
