// `iceberg-bot dev`: the whole bot on one machine to click through. It runs the simulated
// lakehouse, the Slack stand-in, the bot (HTTP mode) and its workers, and serves a small web page
// that shows the incident channel from the stand-in's store. Buttons, modals and slash commands on
// the page become the signed requests Slack would send, as the user picked on the page.

import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type Route, readBody, send, serveEdge } from "../adapters/http/edge.js";
import type { Env } from "../config.js";
import { createSimClock, type SimClock } from "../sim/clock.js";
import { type Lakehouse, startLakehouse } from "../sim/lakehouse.js";
import type { Scenario } from "../sim/scenario/schema.js";
import { listScenarios, loadScenario } from "../sim/scenarios.js";
import {
  buttonClickBody,
  newTriggerId,
  postForm,
  slashCommandBody,
  viewSubmissionBody,
} from "../sim/slack/person.js";
import { DEFAULT_STAND_IN_TOKEN, startSlackStandIn } from "../sim/slack/stand-in.js";
import type { StoredFile } from "../sim/slack/types.js";
import { DEFAULT_SCENARIO } from "./commands/sim-command.js";
import { ensureRedis, type SimBot, startSimBot } from "./demo.js";
import { createDevGuard, DEV_TOKEN_PARAM, type DevGuard, exposedWarning } from "./dev-guard.js";
import { DEV_PAGE } from "./dev-page.js";

const DEV_CHANNEL = "C0INCIDENTS";
/** The people on the page: two approvers (risky steps need both) and someone who may not approve. */
const DEV_USERS = [
  { id: "U0DEVONCALL", label: "on-call engineer (approver)" },
  { id: "U0DEVLEAD", label: "data platform lead (second approver)" },
  { id: "U0DEVGUEST", label: "analyst (not an approver)" },
] as const;
const APPROVERS = DEV_USERS.slice(0, 2).map((u) => u.id);
const DAY_MS = 86_400_000;

export interface DevOptions {
  env: Env;
  say: (line: string) => void;
  /** The page's port (default 3100; 0 picks a free one). */
  port?: number;
  host?: string;
  /** The scenario the lakehouse plays first (default competing-appends). */
  scenario?: string;
  /** Real time between follow-up checks (default 10 s). */
  followUpIntervalMs?: number;
}

export type DevServer = Awaited<ReturnType<typeof startDev>>;

interface Modal {
  /** Index in the stand-in's views.opened. */
  index: number;
  user: string;
  closed: boolean;
  errors?: Record<string, string>;
}

type Json = Record<string, unknown>;

export async function startDev(options: DevOptions) {
  const found = await ensureRedis(
    options.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    options.env,
    options.say,
  );
  if (!found) {
    throw new Error(
      "No Redis answers and redis-server is not on PATH: start one (docker compose up -d redis) or set REDIS_URL.",
    );
  }
  const redisUrl = found.url;
  // One running clock for every scenario played: the world moves with the wall clock.
  const clock: SimClock = createSimClock(undefined, { running: true });
  const standIn = await startSlackStandIn();

  interface Running {
    scenario: Scenario;
    lakehouse: Lakehouse;
    sim: SimBot;
  }
  let running: Running | undefined;
  const modals: Modal[] = [];
  /** trigger_id handed out with each click -> the person who clicked. */
  const triggers = new Map<string, string>();

  /** Gives each view the bot opened to the person whose click (trigger_id) opened it. */
  function claimViews(): void {
    const claimed = new Set(modals.map((m) => m.index));
    for (const call of standIn.calls) {
      if (call.method !== "views.open" || !call.ok) continue;
      const user = triggers.get(String(call.args.trigger_id));
      const id = (call.response as { view?: { id?: string } } | undefined)?.view?.id;
      const index = standIn.views.opened.findIndex((v) => (v as { id?: string }).id === id);
      if (user && index >= 0 && !claimed.has(index)) {
        modals.push({ index, user, closed: false });
        claimed.add(index);
      }
    }
  }

  async function stopRunning(): Promise<void> {
    if (!running) return;
    const { sim, lakehouse } = running;
    running = undefined;
    await sim.stop();
    await lakehouse.close();
  }

  /** Plays scenario `name`: a fresh lakehouse and bot (earlier threads stay on the page). */
  async function play(name: string): Promise<Running> {
    if (running?.scenario.name === name) return running;
    await stopRunning();
    const scenario = loadScenario(name);
    const lakehouse = await startLakehouse({ scenario, clock });
    try {
      const sim = await startSimBot({
        name: "dev",
        lakehouse,
        standIn,
        redisUrl,
        env: options.env,
        channel: DEV_CHANNEL,
        botConfig: (platform) => `defaults:\n  approvers: [${APPROVERS.join(", ")}]\n${platform}`,
        followUpIntervalMs: options.followUpIntervalMs ?? 10_000,
      });
      running = { scenario, lakehouse, sim };
      return running;
    } catch (error) {
      await lakehouse.close();
      throw error;
    }
  }

  function state(): Json {
    claimViews();
    return {
      scenario: running?.scenario.name,
      // The table the scenario is about: the command box suggests commands on it.
      table: running?.scenario.table,
      scenarios: listScenarios(),
      users: DEV_USERS,
      nowMs: clock.now(),
      messages: standIn.messages(DEV_CHANNEL),
      // The alt text of each shared picture, which Slack reads out in place of the image.
      fileAlt: Object.fromEntries(standIn.files().flatMap((f) => (f.altText ? [[f.id, f.altText]] : []))),
      modals: modals.map((m) => ({ ...m, view: standIn.views.opened[m.index] })),
    };
  }

  async function fireAlert(body: Json): Promise<Json> {
    const name = String(body.scenario ?? "");
    if (!listScenarios().includes(name)) return { ok: false, error: `unknown scenario ${name}` };
    const { sim, scenario } = await play(name);
    const response = await sim.fireAlert(scenario.table, scenario.flink?.jobs[0]?.name);
    return { ok: response.status === 202, status: response.status, table: scenario.table };
  }

  /** A button press on a message, as block_actions from `user`; a modal it opens is theirs. */
  async function action(body: Json): Promise<Json> {
    if (!running) return { ok: false, error: "fire an alert first" };
    const user = String(body.user);
    const message = standIn.messages(DEV_CHANNEL).find((m) => m.ts === body.ts);
    if (!message) return { ok: false, error: "no such message" };
    const before = standIn.views.opened.length;
    const triggerId = newTriggerId();
    triggers.set(triggerId, user);
    const actionId = String(body.actionId);
    const button = {
      action_id: actionId,
      value: body.value as string,
      text: { text: String(body.text ?? actionId) },
    };
    const person = running.sim.person(user);
    const found = { message, button, blockId: String(body.blockId) };
    const answer = await postForm(
      person,
      buttonClickBody(person, found, { triggerId, actionTs: `${Date.now() / 1000}` }),
    );
    // The bot opens its modal after the ack; give it a moment so the page can show it at once.
    for (let i = 0; i < 40 && standIn.views.opened.length === before; i++) await sleep(50);
    claimViews();
    return { ok: answer.status === 200, status: answer.status };
  }

  /** The modal's submit: view_submission with the values typed on the page. */
  async function submit(body: Json): Promise<Json> {
    const modal = modals.find((m) => m.index === body.index && !m.closed);
    if (!running || !modal) return { ok: false, error: "no open modal" };
    const view = standIn.views.opened[modal.index] as Json;
    const person = running.sim.person(modal.user);
    const answer = await postForm(
      person,
      viewSubmissionBody(person, view, body.values ?? {}, newTriggerId()),
    );
    const ack = parseJson(answer.body);
    if (ack?.response_action === "errors") {
      modal.errors = ack.errors as Record<string, string>;
      return { ok: false, errors: modal.errors };
    }
    modal.closed = answer.status === 200;
    return { ok: modal.closed, status: answer.status };
  }

  function closeModal(body: Json): Json {
    const modal = modals.find((m) => m.index === body.index);
    if (modal) modal.closed = true;
    return { ok: true };
  }

  /** A slash command typed on the page; the ack's ephemeral reply shows for that user only. */
  async function command(body: Json): Promise<Json> {
    const { sim } = running ?? (await play(options.scenario ?? DEFAULT_SCENARIO));
    const user = String(body.user);
    const match = /^(\/\S+)\s*([\s\S]*)$/.exec(String(body.text ?? "").trim());
    if (!match) return { ok: false, error: "type a command such as /iceberg help" };
    const person = sim.person(user);
    const answer = await postForm(person, slashCommandBody(person, match[1]!, match[2]!, newTriggerId()));
    const ack = parseJson(answer.body);
    // Slack shows the ack's reply to that user only: the stand-in keeps it as such a message.
    if (ack && (typeof ack.text === "string" || Array.isArray(ack.blocks))) {
      await fetch(`${standIn.apiUrl}chat.postEphemeral`, {
        method: "POST",
        headers: { authorization: `Bearer ${DEFAULT_STAND_IN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ channel: DEV_CHANNEL, user, text: ack.text, blocks: ack.blocks }),
      });
    }
    return { ok: answer.status === 200, status: answer.status };
  }

  async function advance(body: Json): Promise<Json> {
    const minutes = Number(body.minutes ?? 6);
    if (!running) return { ok: false, error: "fire an alert first" };
    if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60)
      return { ok: false, error: "minutes out of range" };
    running.lakehouse.advance(minutes * 60_000);
    return { ok: true, nowMs: clock.now() };
  }

  /**
   * The same table fails the same way a day later: a fresh world of the scenario on the same ports,
   * the bot and its memory kept, so the next alert is a repeat incident ("Seen on …").
   */
  async function again(): Promise<Json> {
    if (!running) return { ok: false, error: "fire an alert first" };
    const old = running.lakehouse;
    const ports = Object.fromEntries(
      Object.entries(old.urls).map(([kind, url]) => [kind, Number(new URL(url).port)]),
    );
    await old.close();
    clock.advance(DAY_MS);
    running.lakehouse = await startLakehouse({ scenario: running.scenario, clock, ports });
    return { ok: true, nowMs: clock.now() };
  }

  function fixByHand(): Json {
    if (!running) return { ok: false, error: "fire an alert first" };
    const { table } = running.scenario;
    return { ok: true, fixed: running.lakehouse.fixByHand(table), table };
  }

  const boundHost = options.host ?? "127.0.0.1";
  let port = 0;
  const guard = createDevGuard(boundHost, () => port);
  await play(options.scenario ?? DEFAULT_SCENARIO);
  const actions = {
    alert: fireAlert,
    action,
    submit,
    close: closeModal,
    command,
    advance,
    fix: fixByHand,
    again,
  };
  const edge = await serveEdge(
    devRoutes(guard, { state, files: () => standIn.files(), actions }),
    options.port ?? 3100,
    boundHost,
  );
  port = edge.port;
  const warning = exposedWarning(boundHost);
  if (warning) options.say(warning);
  const url = `http://${boundHost.includes(":") ? `[${boundHost}]` : boundHost}:${port}/`;
  return {
    url,
    /** The page with the session token: opening it sets the session cookie (print it, never serve it). */
    link: `${url}?${DEV_TOKEN_PARAM}=${guard.token}`,
    /** The session token: in the link, then in the cookie the page's calls carry. */
    token: guard.token,
    async close() {
      await edge.close();
      await stopRunning();
      await standIn.close();
      await found.stop?.();
    },
  };
}

/** What the page's server asks of the running scenario. */
interface DevPageApi {
  state(): Json;
  files(): readonly StoredFile[];
  /** POST /api/<name> -> the JSON answer to the JSON body posted. */
  actions: Record<string, (body: Json) => Json | Promise<Json>>;
}

/** The page's routes: the page, its state, shared files and the POST actions, all behind the guard. */
function devRoutes(guard: DevGuard, api: DevPageApi): Route[] {
  const guarded = (
    method: string,
    path: string | RegExp,
    answer: (req: IncomingMessage, res: ServerResponse) => unknown,
  ): Route => ({
    method,
    path,
    handler: (req, res) => {
      const refused = guard.refuse(req, path !== "/");
      if (refused) return sendJson(res, refused.status, { ok: false, error: refused.error });
      Promise.resolve()
        .then(() => answer(req, res))
        .catch((error: unknown) => sendJson(res, 500, { ok: false, error: (error as Error).message }));
    },
  });
  return [
    guarded("GET", "/", (req, res) => servePage(req, res, guard)),
    guarded("GET", "/api/state", (_req, res) => sendJson(res, 200, api.state())),
    // A file shared in the channel (the commit timeline pictures), for the page to show inline.
    guarded("GET", FILE_PATH, (req, res) => serveFile(req, res, api.files())),
    ...Object.entries(api.actions).map(([name, act]) =>
      guarded("POST", `/api/${name}`, async (req, res) => {
        const raw = await readBody(req, DEV_BODY_LIMIT);
        if (raw === undefined) throw new Error("request body too large");
        sendJson(res, 200, await act(parseJson(raw.toString("utf8")) ?? {}));
      }),
    ),
  ];
}

const FILE_PATH = /^\/api\/files\/(F\d+)$/;
const DEV_BODY_LIMIT = 1_000_000;
const NO_STORE = { "cache-control": "no-store" };

/** The page itself; the printed link binds this browser with a cookie and drops the token from the address bar. */
function servePage(req: IncomingMessage, res: ServerResponse, guard: DevGuard): void {
  if (guard.linkCarriesToken(new URL(req.url ?? "/", "http://dev.invalid"))) {
    send(res, 303, "", undefined, { location: "/", "set-cookie": guard.sessionCookie(), ...NO_STORE });
    return;
  }
  const refused = guard.refuse(req, true);
  if (refused) {
    send(res, refused.status, `${refused.error}\n`, "text/plain; charset=utf-8", NO_STORE);
    return;
  }
  send(res, 200, DEV_PAGE, "text/html; charset=utf-8", { ...NO_STORE, "x-frame-options": "DENY" });
}

function serveFile(req: IncomingMessage, res: ServerResponse, files: readonly StoredFile[]): void {
  const fileId = FILE_PATH.exec(new URL(req.url ?? "/", "http://dev.invalid").pathname)?.[1];
  const file = files.find((f) => f.id === fileId);
  if (!file?.bytes) {
    sendJson(res, 404, { ok: false, error: `no file ${fileId}` });
    return;
  }
  res.writeHead(200, {
    "content-type": file.mimetype ?? "application/octet-stream",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(Buffer.from(file.bytes));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, JSON.stringify(body), "application/json", NO_STORE);
}

function parseJson(text: string): Json | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}
