// The duplicate (commit-state-unknown-duplicate): the step is "Remove the duplicate commit" and the
// open item is the same work, so one press of "Done by hand" marks both. Right after the press the
// card in the thread, App Home, `/iceberg status` and the story count nothing open; at the end the
// history and the postmortem say nothing remains open and nobody pressed "Mark done".

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { loadPlaybooks } from "../../src/adapters/playbooks/files.js";
import { loadStory } from "../../src/adapters/slack/story-source.js";
import { SlackViews } from "../../src/adapters/slack/views.js";
import type { SlackClient } from "../../src/adapters/slack/web-client.js";
import { HistoryStore } from "../../src/adapters/store/history-store.js";
import { IncidentStore } from "../../src/adapters/store/incident-store.js";
import { PeopleStore } from "../../src/adapters/store/people-store.js";
import { RemediationStore } from "../../src/adapters/store/remediation-store.js";
import { DEMO_APPROVER, type DemoEnd, runDemo } from "../../src/cli/demo.js";
import type { IncidentHistory } from "../../src/core/history/record.js";
import type { OpenItem } from "../../src/core/verification/open-items.js";
import { REDIS_URL } from "../support/redis.js";

const outDir = mkdtempSync(join(tmpdir(), "duplicate-one-press-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** Every text of a message or view (block texts and button labels), one per line. */
function shown(value: unknown): string {
  const parts: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object")
      for (const [key, child] of Object.entries(v)) {
        if ((key === "text" || key === "action_id") && typeof child === "string") parts.push(child);
        else visit(child);
      }
  };
  visit(value);
  return parts.join("\n");
}

interface AfterPress {
  items: OpenItem[];
  card: string;
  home: string;
  status: string;
}

describe("the duplicate: one press of Done by hand", () => {
  it("removes the duplicate and marks its open item done on every surface", async () => {
    let out = "";
    let afterPress: AfterPress | undefined;
    let end: DemoEnd | undefined;
    let history: IncidentHistory | undefined;
    const playbooks = await loadPlaybooks();
    const code = await runDemo({
      scenario: "commit-state-unknown-duplicate",
      stdout: { write: (chunk: string) => (out += chunk) },
      env: { REDIS_URL },
      // The demo moves the clock once it sees the press recorded; checks paced wide enough that a
      // loaded machine still gets there before they run out (else the walk ends stalled).
      followUpIntervalMs: 2000,
      outDir,
      onMoment: async (moment) => {
        if (moment.label === "end") {
          end = moment;
          const redis = new Redis(moment.redisUrl);
          try {
            const store = new HistoryStore(redis, {
              namespace: moment.namespace,
              resolvedDays: 30,
              now: moment.now,
            });
            history = (await store.all())[0];
          } finally {
            redis.disconnect();
          }
          return;
        }
        if (moment.label !== "done by hand") return;
        const redis = new Redis(moment.redisUrl);
        try {
          const store = new IncidentStore(redis, { namespace: moment.namespace });
          const story = {
            store,
            walks: new RemediationStore(redis, moment.namespace),
            playbooks,
            people: new PeopleStore(redis, store.keys),
          };
          const incident = (await store.listOpen())[0];
          if (!incident) return;
          const client = {
            chat: { getPermalink: async () => ({ ok: true, permalink: "https://slack.example/thread" }) },
          } as unknown as SlackClient;
          const views = new SlackViews({ client, store, now: moment.now, story });
          afterPress = {
            items: (await loadStory(story, incident)).openItems,
            card: shown(moment.readThread()[0]?.blocks),
            home: shown((await views.home()).blocks),
            status: shown(await views.reply({ kind: "status" })),
          };
        } finally {
          redis.disconnect();
        }
      },
    });
    expect(code, out).toBe(0);

    // One press: Done by hand on the step, never Mark done on the card.
    expect(out.match(/presses Done by hand/g) ?? []).toHaveLength(1);
    expect(out).not.toMatch(/presses Mark done/);

    // Right after the press, the item is done by the person who pressed, and no surface counts it.
    expect(afterPress, out).toBeDefined();
    const { items, card, home, status } = afterPress!;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ doneBy: DEMO_APPROVER });
    expect(items[0]?.text).toMatch(/^Remove the duplicate commit/);
    for (const [surface, text] of [
      ["card", card],
      ["App Home", home],
      ["/iceberg status", status],
    ] as const) {
      expect(text, surface).not.toMatch(/\d+ open items?/);
      expect(text, surface).not.toContain("incident_item_done");
    }

    // At the end: the history and the postmortem say nothing remains open.
    expect(history?.state, out).toBe("resolved");
    expect(history?.openItems).toEqual([]);
    const canvas = end?.canvases.at(-1)?.markdown ?? "";
    expect(canvas).toContain("Nothing remains open.");
    expect(canvas).toContain("Remove the duplicate commit");
    const thread = shown(end?.thread.map((m) => m.blocks));
    expect(thread).not.toMatch(/\d+ open items?/);
    // The writer never stopped: no surface says its commits resumed.
    expect(end?.thread[0]?.text).toContain("commits flowing");
    expect(end?.thread[0]?.text).not.toContain("commits resumed");
    expect(canvas).toContain("it was committing all along");
    expect(canvas).not.toContain("Recovered: the writer's commits resumed");
    // The recovery message does not ask for what was just done.
    expect(thread).toContain("Commits were flowing");
    expect(thread).not.toContain("Still to do");
  });
});
