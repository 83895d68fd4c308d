// The remediation service as the bot runs it, for service-level tests: a worker process of the
// bot (role "worker") started by the bot harness (test/integration/bot/harness.ts) on real Redis
// (private namespace), the simulated lakehouse and the Slack stand-in; every message goes through
// the Slack outbox and its poster. Status card edits are kept here instead of sent: card
// rendering is the bot's job and tested with the bot.

import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { loadPlaybooks } from "../../../src/adapters/playbooks/files.js";
import type { RemediationQueue } from "../../../src/adapters/queue/remediation-queue.js";
import { SlackOutbox } from "../../../src/adapters/slack/outbox/outbox.js";
import type { BackoffSettings, PosterDeps } from "../../../src/adapters/slack/outbox/poster.js";
import { placeholderId, renderPlaceholder } from "../../../src/adapters/slack/placeholder.js";
import { createSlackClient } from "../../../src/adapters/slack/web-client.js";
import { AuditTrail } from "../../../src/adapters/store/audit-trail.js";
import type { IncidentStore } from "../../../src/adapters/store/incident-store.js";
import { RemediationStore } from "../../../src/adapters/store/remediation-store.js";
import type { Config } from "../../../src/config.js";
import type { StepId } from "../../../src/core/ids.js";
import type { Report } from "../../../src/core/report/schema.js";
import type { Bot, BotOptions } from "../../../src/main.js";
import { diagnoseTable } from "../../../src/services/diagnose-table.js";
import type { SlackMessageRequest } from "../../../src/services/ports.js";
import type { RemediationDeps } from "../../../src/services/remediation/deps.js";
import type { Remediation } from "../../../src/services/remediation/remediation.js";
import type { Lakehouse } from "../../../src/sim/lakehouse.js";
import type { Scenario } from "../../../src/sim/scenario/schema.js";
import { loadScenario } from "../../../src/sim/scenarios.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";
import { until } from "../../support/poll.js";
import { startHarness } from "../bot/harness.js";

export const CHANNEL = "C0REMEDY";
export const ALICE = "U0ALICE";
export const BOB = "U0BOB";
export const CAROL = "U0CAROL";
export const MALLORY = "U0MALLORY";

export interface ServiceHarness {
  /** What is owed to Slack, and the bot's poster. */
  outbox: SlackOutbox;
  poster: { start(): void };
  /** Another worker process on the same Redis (its own poster, a clock of its own); stopped on close. */
  anotherPoster(overrides: Pick<BotOptions, "wallClock">): Promise<Bot>;
  bot: Bot;
  table: string;
  lakehouse: Lakehouse;
  standIn: SlackStandIn;
  remediation: Remediation;
  store: IncidentStore;
  walks: RemediationStore;
  audit: AuditTrail;
  queue: RemediationQueue;
  config: Config;
  cards: SlackMessageRequest[];
  /** Opens an incident for db.events with its root message, diagnoses it and proposes the next step. */
  openIncident(): Promise<{ incidentId: string; rootTs: string; report: Report }>;
  /** openIncident, then the walk's first proposal as an Apply button's value names it. */
  openProposal(): Promise<{
    incidentId: string;
    rootTs: string;
    report: Report;
    value: { incidentId: string; stepId: StepId; proposalId: string };
  }>;
  catalogCommits(): number;
  /** Resolves once the poster has sent everything owed to Slack. */
  delivered(): Promise<void>;
  /** Opens the placeholder an Apply click opens (as the receiver would); returns its view id. */
  applyForm(click: string): Promise<string>;
  close(): Promise<void>;
}

export interface ServiceHarnessOptions {
  scenario?: string | Scenario;
  approvers?: string[];
  checks?: number;
  intervalMs?: number;
  afterApply?: RemediationDeps["afterApply"];
  catalogTimeoutMs?: number;
  /** A private Redis (the restart test); the shared one by default. */
  redisUrl?: string;
  /** False: no worker takes remediation jobs (the test runs them by hand). */
  worker?: boolean;
  /** The poster's settings (it starts unless start: false). */
  outbox?: {
    backoff?: Partial<BackoffSettings>;
    timeoutMs?: number;
    start?: boolean;
    afterSend?: PosterDeps["afterSend"];
    onDropped?: PosterDeps["onDropped"];
    onSlackError?: PosterDeps["onSlackError"];
  };
}

export async function startServiceHarness(label: string, options: ServiceHarnessOptions = {}) {
  const scenario =
    typeof options.scenario === "object"
      ? options.scenario
      : loadScenario(options.scenario ?? "competing-appends");
  const table = scenario.table;
  const [namespace, name] = [table.slice(0, table.lastIndexOf(".")), table.slice(table.lastIndexOf(".") + 1)];
  const commitPath = new RegExp(`/namespaces/${namespace.replace(/\./g, "%1F")}/tables/${name}$`);
  const approvers = options.approvers ?? [ALICE, BOB, "S0ONCALL"];
  const cards: SlackMessageRequest[] = [];
  // What every worker process of this harness shares; the first one also takes remediation jobs
  // (unless worker: false), runs the poster as the test asks and keeps card edits back.
  const base = await startHarness(label, {
    scenario,
    bots: 0,
    standIn: { usergroups: { S0ONCALL: [CAROL] } },
    env: {
      // Incidents here are opened in CHANNEL by the harness itself, not routed by the bot.
      INCIDENT_CHANNEL: "",
      SOURCE_TIMEOUT_MS: String(options.catalogTimeoutMs ?? 2000),
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    },
    botConfig: [
      "defaults:",
      `  approvers: [${approvers.join(", ")}]`,
      `  followUp: { intervalSeconds: 60, checks: ${options.checks ?? 3} }`,
      "tables:",
      "  db.events:",
      "    flinkJobName: events-ingest",
      "",
    ].join("\n"),
    botOptions: {
      role: "worker",
      backoffMs: 50,
      remediation: {
        followUpIntervalMs: options.intervalMs ?? 150,
        diagnosisWaitMs: 200,
        ...(options.afterApply ? { afterApply: options.afterApply } : {}),
      },
      slackDelivery: { timeoutMs: options.outbox?.timeoutMs ?? 2000, backoff: options.outbox?.backoff },
    },
  });
  const { standIn, config, scope } = base;
  const lakehouse = base.lakehouse!;
  const now = () => lakehouse.clock.now();
  const bot = await base.addBot({
    remediationWorker: options.worker !== false,
    outboxPoster: {
      startStopped: options.outbox?.start === false,
      afterSend: options.outbox?.afterSend,
      onDropped: options.outbox?.onDropped,
      onSlackError: options.outbox?.onSlackError,
    },
    slackPort: (outbox) => ({
      send: async (request) => {
        if (request.kind !== "card") return outbox.send(request);
        cards.push(request);
        return undefined;
      },
    }),
  });
  const { store, remediation } = bot;
  const outbox = new SlackOutbox(bot.redis, scope.namespace);
  const walks = new RemediationStore(bot.redis, scope.namespace);
  const audit = new AuditTrail(bot.redis, store.keys);
  const playbooks = await loadPlaybooks();
  const ports = createEvidencePorts(config);
  const slack = createSlackClient({ token: "xoxb-stand-in", apiUrl: standIn.apiUrl });

  const harness: ServiceHarness = {
    table,
    lakehouse,
    standIn,
    remediation,
    store,
    walks,
    audit,
    outbox,
    poster: bot.outboxPoster!,
    queue: bot.remediationQueue,
    config,
    cards,
    bot,
    async applyForm(click) {
      const viewId = placeholderId("apply", click);
      await slack.views.open({ trigger_id: click, view: renderPlaceholder(viewId, "Apply change", "…") });
      return viewId;
    },
    async openIncident() {
      const { incident } = await store.openOrJoin(table, CHANNEL, now());
      const root = await slack.chat.postMessage({ channel: CHANNEL, text: "status card" });
      const rootTs = String(root.ts);
      await store.update(incident.id, { rootTs, state: "awaiting-approval" }, now());
      const { report } = await diagnoseTable(ports, { table }, now, { playbooks: playbooks.playbooks });
      const n = await store.nextDiagnosis(incident.id);
      await store.saveReport(incident.id, n, report);
      const posted = await slack.chat.postMessage({ channel: CHANNEL, thread_ts: rootTs, text: "diagnosis" });
      await outbox.saveTs(incident.id, `diagnosis-${n}`, String(posted.ts));
      await remediation.proposeFromReport(incident.id, n, report);
      return { incidentId: incident.id, rootTs, report };
    },
    async openProposal() {
      const opened = await harness.openIncident();
      const walk = await until(() => walks.get(opened.incidentId), "the walk");
      const stepId = opened.report.nextStep?.id as StepId;
      const value = { incidentId: opened.incidentId, stepId, proposalId: walk.value.proposals[0]!.id };
      return { ...opened, value };
    },
    catalogCommits: () =>
      lakehouse.requests.filter(
        (r) => r.service === "catalog" && r.method === "POST" && commitPath.test(r.path),
      ).length,
    async delivered() {
      await until(async () => (await outbox.pending()) === 0, "the outbox to drain");
    },
    anotherPoster: (overrides) => base.addBot(overrides),
    close: () => base.close(),
  };
  return harness;
}

export { until } from "../../support/poll.js";
