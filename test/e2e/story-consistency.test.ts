// One story, every surface, every step: each scenario of the library is played through the bot (the
// demo: alert, diagnosis, the playbook walked as people would) and at every point where the bot has
// done its work and the thread waits — after the diagnosis, after each proposal, after each change
// and its checks, at the end — the status card as Slack holds it, App Home and `/iceberg status` as
// the bot builds them, and the thread must agree with the incident's story on health, the failing
// writer, the step and its state, the open items and the recovery minutes; at the end the history
// record and the postmortem canvas agree too. No check may state a snapshot the bot could not read.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { loadPlaybooks } from "../../src/adapters/playbooks/files.js";
import { renderPostmortemMarkdown } from "../../src/adapters/render/postmortem-markdown.js";
import { HEALTH_EMOJI, renderStatusCard, writerWords } from "../../src/adapters/slack/render/status-card.js";
import { loadStory } from "../../src/adapters/slack/story-source.js";
import { SlackViews } from "../../src/adapters/slack/views.js";
import type { SlackClient } from "../../src/adapters/slack/web-client.js";
import { HistoryStore } from "../../src/adapters/store/history-store.js";
import { IncidentStore } from "../../src/adapters/store/incident-store.js";
import { PeopleStore } from "../../src/adapters/store/people-store.js";
import { RemediationStore } from "../../src/adapters/store/remediation-store.js";
import { type DemoMoment, runDemo } from "../../src/cli/demo.js";
import type { IncidentHistory } from "../../src/core/history/record.js";
import type { PlaybookSet } from "../../src/core/remediation/schema.js";
import type { IncidentStory } from "../../src/core/story/model.js";
import { recoveredAfterWords } from "../../src/core/words/recovery.js";
import { draftPostmortem } from "../../src/services/history/postmortem.js";
import { listScenarios } from "../../src/sim/scenarios.js";
import type { StoredMessage } from "../../src/sim/slack/types.js";
import { REDIS_URL } from "../support/redis.js";

const PARALLEL = 4;
const pictures = mkdtempSync(join(tmpdir(), "story-consistency-"));
afterAll(() => rmSync(pictures, { recursive: true, force: true }));

/** Every surface at one moment, read while the story did not change. */
interface Surfaces {
  label: string;
  story: IncidentStory;
  thread: StoredMessage[];
  home?: unknown[];
  status?: string;
  history?: IncidentHistory;
  /** The canvas as Slack received it when the incident closed. */
  canvas?: string;
  /** The postmortem as the bot drafts it at this moment. */
  postmortem?: string;
  now: number;
}

interface Played {
  code: number;
  out: string;
  moments: Surfaces[];
}

type Json = Record<string, unknown>;

/** Every text a message shows (fallback text, block texts, button labels), one per line. */
function shown(message: { text?: string; blocks?: unknown }): string {
  const parts = [message.text ?? ""];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object")
      for (const [key, child] of Object.entries(value)) {
        if (key === "text" && typeof child === "string") parts.push(child);
        else visit(child);
      }
  };
  visit(message.blocks);
  return parts.join("\n");
}

/** What a card says, without the times that move with the clock: the facts surfaces must share. */
function cardFacts(text: string, blocks: readonly unknown[]) {
  const all = shown({ text, blocks });
  const header = (blocks[0] as Json | undefined)?.text as Json | undefined;
  const status = blocks
    .map((b) => b as Json)
    .filter((b) => b.type === "context")
    .map((b) => shown({ blocks: [b] }))
    .find((t) => / · opened /.test(t));
  const buttons = blocks
    .flatMap((b) => ((b as Json).elements as Json[] | undefined) ?? [])
    .filter((e) => e.type === "button")
    .map((e) => `${e.action_id}=${e.value}`);
  return {
    colour: /^(:[a-z_]+:)/.exec(String(header?.text ?? ""))?.[1],
    // "step 2 · check 1 of 6 · no recovery after 3 checks", without "opened …" and "updated …".
    position: status
      ?.split(" · ")
      .filter((p) => !/^(opened|updated) /.test(p))
      .join(" · "),
    failing: /\*Failing:\* ([^,\n]+)/.exec(all)?.[1],
    stillOpen: (all.match(/\*Still open:\*/g) ?? []).length,
    resolution: /\*(Fixed by|Commits were flowing):\*[^\n]*/.exec(all)?.[0],
    buttons,
  };
}

/** The incident's blocks on App Home: from its card's header to the divider after it. */
function homeCard(blocks: readonly unknown[], table: string): unknown[] | undefined {
  const start = blocks.findIndex(
    (b) => (b as Json).type === "header" && String(((b as Json).text as Json).text).includes(table),
  );
  if (start < 0) return undefined;
  const end = blocks.findIndex((b, i) => i > start && (b as Json).type === "divider");
  return blocks.slice(start, end < 0 ? undefined : end);
}

async function readSurfaces(
  moment: DemoMoment,
  redis: Redis,
  playbooks: PlaybookSet,
  readThread: () => StoredMessage[],
): Promise<Surfaces | undefined> {
  const store = new IncidentStore(redis, { namespace: moment.namespace });
  const history = new HistoryStore(redis, { namespace: moment.namespace, resolvedDays: 30, now: moment.now });
  const story = {
    store,
    walks: new RemediationStore(redis, moment.namespace),
    playbooks,
    people: new PeopleStore(redis, store.keys),
  };
  let homeView: unknown[] | undefined;
  const client = {
    chat: { getPermalink: async () => ({ ok: true, permalink: "https://slack.example/thread" }) },
  } as unknown as SlackClient;
  // A follow-up check may land while the surfaces are read: read again, once the bot has delivered
  // what it had to, until neither the story nor the thread moved in between.
  for (let attempt = 0; attempt < 20; attempt++) {
    await moment.settle();
    const open = (await store.listOpen())[0];
    const closed = open ? undefined : (await history.all())[0];
    const incident = open ?? (closed ? await store.get(closed.incidentId) : undefined);
    if (!incident) return undefined;
    const before = await loadStory(story, incident);
    const thread = structuredClone(readThread());
    const now = moment.now();
    // App Home and `/iceberg status` as the outbox's poster renders them.
    const views = new SlackViews({ client, store, now: () => now, story });
    homeView = (await views.home()).blocks;
    const status = await views.reply({ kind: "status" });
    // The postmortem as the bot drafts it now, from the same stores.
    const draft = closed ? await draftPostmortem({ ...story, history }, incident.id) : undefined;
    await moment.settle();
    const again = await store.get(incident.id);
    const after = again ? await loadStory(story, again) : undefined;
    if (JSON.stringify(after) !== JSON.stringify(before)) continue;
    if (JSON.stringify(readThread()) !== JSON.stringify(thread)) continue;
    const canvas = moment.canvases.at(-1)?.markdown;
    return {
      label: moment.label,
      story: before,
      thread,
      ...(open ? { home: homeCard(homeView ?? [], incident.table) ?? [], status: shown(status) } : {}),
      ...(closed ? { history: closed } : {}),
      ...(canvas ? { canvas } : {}),
      ...(draft ? { postmortem: renderPostmortemMarkdown(draft.postmortem) } : {}),
      now,
    };
  }
  throw new Error(`${moment.label}: the story kept changing while it was read`);
}

/** Where each surface disagrees with the story (empty when they all tell it). */
function disagreements(s: Surfaces): string[] {
  const out: string[] = [];
  const say = (what: string, got: unknown, want: unknown) => {
    if (JSON.stringify(got) !== JSON.stringify(want))
      out.push(`${s.label}: ${what}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
  };
  const { story, thread, now } = s;
  const rendered = renderStatusCard(story, now);
  const want = cardFacts(rendered.text, rendered.blocks);
  const root = thread[0];
  if (!root) return [`${s.label}: no thread`];

  // Health is the colour, the same on the card, App Home and /iceberg status.
  say("story colour", want.colour, HEALTH_EMOJI[story.health]);
  const card = cardFacts(root.text, root.blocks);
  say("card as Slack holds it", card, want);
  say("card text", root.text.split(" ")[0], HEALTH_EMOJI[story.health]);
  if (s.home) say("App Home card", cardFacts(rendered.text, s.home), want);
  if (s.status !== undefined && !s.status.includes(`${HEALTH_EMOJI[story.health]} *${story.table}*`))
    out.push(`${s.label}: /iceberg status does not show ${HEALTH_EMOJI[story.health]} ${story.table}`);

  // The failing writer is named while, and only while, its commits are known to fail.
  if (story.health === "failing" && story.writer && story.workflow !== "resolved")
    say("failing writer", card.failing, writerWords(story.writer));
  if (story.health !== "failing") say("no failing writer", card.failing, undefined);

  // The thread's newest word on the step in play is the step state every surface shows.
  const posted = thread.slice(1).map(shown);
  const lastProposal = posted.findLastIndex((t) => /Step \d+/.test(t));
  const sinceProposal = lastProposal < 0 ? [] : posted.slice(lastProposal);
  const verdict = sinceProposal.findLast((t) =>
    /\*(Verifying|No recovery|Could not check|Checked|Recovered|Commits were flowing)/.test(t),
  );
  const step = story.step;
  if (verdict && step) {
    const noRecovery = /\*No recovery:\* after (\d+) checks/.exec(verdict);
    if (noRecovery) {
      say("step state after the thread's No recovery", step.state, "no-recovery");
      if (!card.position?.includes(`no recovery after ${noRecovery[1]} check`))
        out.push(
          `${s.label}: the thread says no recovery after ${noRecovery[1]} checks, the card: ${card.position}`,
        );
    }
    if (/\*Could not check:\*/.test(verdict)) {
      say("step state after the thread's Could not check", step.state, "could-not-check");
      say("health while the check could not see", story.health, "unknown");
      if (card.position?.includes("no recovery"))
        out.push(`${s.label}: the thread says it could not check, the card: ${card.position}`);
    }
    const checking = /\*Verifying[^\n]*\ncheck (\d+) of (\d+)/.exec(verdict);
    if (checking && story.workflow === "verifying")
      if (!card.position?.includes(`check ${checking[1]} of ${checking[2]}`))
        out.push(
          `${s.label}: the thread is at check ${checking[1]} of ${checking[2]}, the card: ${card.position}`,
        );
    if (/\*(Recovered|Commits were flowing)/.test(verdict))
      say("health after recovery", story.health, "flowing");
  }

  // A check never states a snapshot the bot could not read.
  if (story.unseen.some((u) => u.kind === "catalog"))
    for (const text of posted)
      if (
        /check \d+ of \d+: .*(no new snapshot|new snapshot `)/.test(text) ||
        /has not committed since/.test(text)
      )
        out.push(`${s.label}: a check claims a snapshot fact with the catalog unread: ${text.slice(0, 160)}`);

  // Open items: every surface counts the same ones, from the moment they are found.
  const pending = story.openItems.filter((i) => i.doneBy === undefined).length;
  const itemsSaid = (text: string | undefined) => Number(/(\d+) open items?/.exec(text ?? "")?.[1] ?? 0);
  say("open items the card counts", itemsSaid(card.position), pending);
  if (s.status !== undefined) say("open items /iceberg status counts", itemsSaid(s.status), pending);
  if (story.workflow === "resolved") {
    say("open items on the card", card.stillOpen, pending);
    if (s.history) say("open items in the history", s.history.openItems.length, pending);
    const openIn = (doc: string) => {
      const said = /Nothing remains open|(\d+) items? remains? open/.exec(doc);
      return said?.[1] === undefined ? 0 : Number(said[1]);
    };
    if (s.postmortem) say("open items in the postmortem", openIn(s.postmortem), pending);
    // The canvas is drafted at the close; an item marked done later is told by the card and the
    // history (the canvas is not edited), so it is held to the story only until then.
    if (s.canvas && story.openItems.every((i) => i.doneBy === undefined))
      say("open items in the postmortem canvas", openIn(s.canvas), pending);
  }

  // Recovery minutes: one number on the card, in the thread, the history and the postmortem.
  const recovery = story.recovery;
  if (story.workflow === "resolved" && recovery?.credit === "fixed" && recovery.afterChangeMs !== undefined) {
    // The same minutes counted from the same moment, in the same words, wherever they are said.
    const byHand = story.steps.find((st) => st.stepId === recovery.stepId)?.byHand === true;
    const words = recoveredAfterWords(recovery.afterChangeMs, byHand);
    const thread = posted.find((t) => /\*Recovered:\*/.test(t)) ?? "";
    if (!thread.includes(words)) out.push(`${s.label}: the thread's recovery does not say "${words}"`);
    if (!card.resolution?.includes(words))
      out.push(`${s.label}: the card's recovery does not say "${words}": ${card.resolution}`);
    if (s.history)
      say(
        "history recovery",
        s.history.steps.find((st) => st.outcome === "fixed")?.recoveredAfterMs,
        recovery.afterChangeMs,
      );
    for (const [what, doc] of [
      ["postmortem", s.postmortem],
      ["postmortem canvas", s.canvas],
    ] as const)
      if (doc && !doc.includes(words)) out.push(`${s.label}: the ${what} does not say "${words}"`);
  }
  if (recovery?.credit === "already-flowing") {
    if (s.history?.fixedBy !== undefined) out.push(`${s.label}: the history credits ${s.history.fixedBy}`);
    for (const doc of [s.postmortem, s.canvas])
      if (doc && /stopped committing/.test(doc))
        out.push(`${s.label}: the postmortem says a writer that was committing stopped`);
  }
  return out;
}

async function playAll(names: readonly string[]): Promise<Map<string, Played>> {
  const playbooks = await loadPlaybooks();
  const results = new Map<string, Played>();
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      let out = "";
      const moments: Surfaces[] = [];
      let redis: Redis | undefined;
      const code = await runDemo({
        scenario: name,
        stdout: { write: (chunk: string) => (out += chunk) },
        env: { REDIS_URL },
        followUpIntervalMs: 150,
        outDir: pictures,
        onMoment: async (moment) => {
          redis ??= new Redis(moment.redisUrl);
          const seen = await readSurfaces(moment, redis, playbooks, () => moment.readThread());
          if (seen) moments.push(seen);
        },
      });
      redis?.disconnect();
      results.set(name, { code, out, moments });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

describe("every surface tells the incident's one story at every step", () => {
  const names = listScenarios();
  let results: Map<string, Played>;

  it("plays every scenario to its end", { timeout: 600_000 }, async () => {
    results = await playAll(names);
    const failed = [...results].filter(([, r]) => r.code !== 0).map(([n, r]) => `${n}:\n${r.out}`);
    expect(failed).toEqual([]);
  });

  it.each(names)("%s", (name) => {
    const played = results.get(name);
    expect(played?.code, played?.out).toBe(0);
    const moments = played?.moments ?? [];
    // The diagnosis, at least one moment on the way, and the end.
    expect(moments.map((m) => m.label)).toContain("diagnosis");
    expect(moments.map((m) => m.label)).toContain("end");
    expect(moments.flatMap(disagreements)).toEqual([]);
  });
});
