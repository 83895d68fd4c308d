// One story, every surface: a representative set of scenarios is played through the bot (the
// demo: alert, diagnosis, the playbook walked as people would) and at the end the status card as
// Slack holds it, App Home, `/iceberg status`, the thread, the postmortem and the history record
// must agree with the incident's story on health, the failing writer, the workflow, the open items
// and the recovery minutes; and no check claims a snapshot when the catalog did not answer.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { loadPlaybooks } from "../../src/adapters/playbooks/files.js";
import { renderAppHome } from "../../src/adapters/slack/render/app-home.js";
import { HEALTH_EMOJI } from "../../src/adapters/slack/render/labels.js";
import { renderStatusCard, stateLabel } from "../../src/adapters/slack/render/status-card.js";
import { renderStatusList } from "../../src/adapters/slack/render/status-list.js";
import { cardViewOf, statusItemOf } from "../../src/adapters/slack/render/story-view.js";
import { loadStory } from "../../src/adapters/slack/story-source.js";
import { HistoryStore } from "../../src/adapters/store/history-store.js";
import { IncidentStore } from "../../src/adapters/store/incident-store.js";
import { PeopleStore } from "../../src/adapters/store/people-store.js";
import { WalkStore } from "../../src/adapters/store/walk-store.js";
import { runDemo } from "../../src/cli/demo.js";
import type { IncidentHistory } from "../../src/core/history/record.js";
import type { IncidentStory } from "../../src/core/story/model.js";
import { formatDuration } from "../../src/core/words/duration.js";
import type { StoredMessage } from "../../src/sim/slack/types.js";
import { REDIS_URL } from "../support/redis.js";

/** Resolved by the bot, a step done by hand, an open item, the catalog down, the bot refused. */
const SCENARIOS = [
  "competing-appends",
  "rewrite-in-window",
  "commit-state-unknown-duplicate",
  "catalog-down-flink-failing",
  "catalog-refuses-bot-no-other-source",
  "healthy-flink",
];

const pictures = mkdtempSync(join(tmpdir(), "story-consistency-"));
afterAll(() => rmSync(pictures, { recursive: true, force: true }));

interface Seen {
  story: IncidentStory;
  thread: StoredMessage[];
  canvases: string[];
  history?: IncidentHistory;
  now: number;
}

function shown(message: { text?: string; blocks?: unknown }): string {
  return `${message.text ?? ""}\n${JSON.stringify(message.blocks ?? [])}`;
}

async function play(name: string): Promise<Seen | undefined> {
  const playbooks = await loadPlaybooks();
  let seen: Seen | undefined;
  let out = "";
  const code = await runDemo({
    scenario: name,
    stdout: { write: (chunk: string) => (out += chunk) },
    env: { REDIS_URL },
    followUpIntervalMs: 150,
    outDir: pictures,
    onEnd: async (end) => {
      const redis = new Redis(end.redisUrl);
      try {
        const store = new IncidentStore(redis, { namespace: end.namespace });
        const history = new HistoryStore(redis, { namespace: end.namespace, resolvedDays: 30, now: end.now });
        const table = (await store.listOpen())[0]?.table;
        const closed = table ? [] : await history.all();
        const incident =
          (await store.listOpen())[0] ?? (closed[0] ? await store.get(closed[0].incidentId) : undefined);
        if (!incident) return;
        const story = await loadStory(
          {
            store,
            walks: new WalkStore(redis, end.namespace),
            playbooks,
            people: new PeopleStore(redis, store.keys),
          },
          incident,
        );
        seen = {
          story,
          thread: end.thread,
          canvases: end.canvases.map((c) => JSON.stringify(c)),
          ...(closed[0] ? { history: closed[0] } : {}),
          now: end.now(),
        };
      } finally {
        redis.disconnect();
      }
    },
  });
  expect(code, out).toBe(0);
  return seen;
}

describe("every surface tells the incident's one story", () => {
  it.each(SCENARIOS)("%s", { timeout: 300_000 }, async (name) => {
    const seen = await play(name);
    expect(seen, `${name}: no incident found`).toBeDefined();
    const { story, thread, now } = seen!;
    const colour = HEALTH_EMOJI[story.health];
    const view = cardViewOf(story, now);
    const words = stateLabel(view);

    // The card as Slack holds it (the last edit the outbox made) says what the story says now.
    const root = thread[0]!;
    expect(root.text, `${name}: card colour`).toMatch(new RegExp(`^${colour} `));
    expect(root.text, `${name}: card workflow`).toContain(`(${words})`);
    expect(renderStatusCard(view).text).toMatch(new RegExp(`^${colour} .*\\(${words}\\)$`));

    // App Home and /iceberg status: the same colour and words.
    const home = JSON.stringify(
      renderAppHome({ nowMs: now, open: [{ ...view, incidentId: story.incidentId }], recentTables: [] })
        .blocks,
    );
    expect(home).toContain(`${colour} ${story.table}`);
    const status = shown(renderStatusList({ nowMs: now, incidents: [statusItemOf(story, now)] }));
    if (story.workflow !== "resolved" && story.workflow !== "stopped") {
      expect(status).toContain(`${colour} *${story.table}*`);
      expect(status).toContain(words);
    }

    // The failing writer is named only while its commits are known to fail.
    const card = shown(root);
    if (story.health !== "failing") expect(card, name).not.toContain("Failing:");
    if (story.unseen.some((u) => u.refusedBot)) {
      expect(story.health).toBe("unknown");
      expect(card).toContain("refused the bot's credential");
    }

    // Recovery: the thread, the card and the history give one number of minutes.
    const posted = thread.map(shown).join("\n");
    if (story.workflow === "resolved" && story.recovery?.credit === "already-flowing") {
      // The writer was committing anyway: no surface gives the step the credit.
      expect(card, name).toContain("Commits were flowing");
      expect(card, name).not.toContain("Fixed by:");
      expect(posted, name).toContain("Commits were flowing");
      if (seen!.history) expect(seen!.history.fixedBy, name).toBeUndefined();
    } else if (story.workflow === "resolved" && story.recovery?.afterChangeMs !== undefined) {
      const minutes = formatDuration(story.recovery.afterChangeMs);
      // "after the change", or "after the proposal (done by hand)" for a change made by a person.
      expect(posted).toMatch(new RegExp(`${minutes} after the (change|proposal)`));
      expect(card).toContain(`commits resumed ${minutes} after the change`);
      if (seen!.history)
        expect(seen!.history.steps.find((s) => s.outcome === "fixed")?.recoveredAfterMs).toBe(
          story.recovery.afterChangeMs,
        );
    } else {
      expect(posted, name).not.toMatch(/Recovered:\*/);
    }

    // Open items: the card and the history count the same ones.
    const pending = story.openItems.filter((i) => i.doneBy === undefined).length;
    if (story.workflow === "resolved") {
      expect(card).toContain(pending === 0 ? "(resolved)" : `resolved with ${pending} open item`);
      if (seen!.history) expect(seen!.history.openItems.length).toBe(pending);
    }

    // A check never states a snapshot the bot could not read.
    if (story.unseen.some((u) => u.kind === "catalog" && u.source === undefined))
      expect(posted, name).not.toMatch(/new snapshot `\d+`/);
  });
});
