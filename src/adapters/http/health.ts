// Readiness beyond Redis: whether Slack takes the bot's token, whether the bot is in the channels
// it posts to, and whether messages owed to Slack wait too long. What the poster learns from
// Slack's answers is shared through one Redis hash, so every process (receivers and workers)
// reports the same; each process reads it on a timer and keeps the result in memory, so /readyz
// and /metrics answer at once whatever Redis does. A check's change of state is logged once.

import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import type { HealthCheck } from "./metrics/registry.js";

/** Slack's answers meaning the token itself is refused (revoked, rotated, app uninstalled). */
export const SLACK_TOKEN_ERRORS: ReadonlySet<string> = new Set([
  "invalid_auth",
  "not_authed",
  "not_allowed_token_type",
  "account_inactive",
  "token_revoked",
  "token_expired",
]);

/** Slack's answers meaning the bot cannot post in that channel until someone acts. */
const SLACK_CHANNEL_ERRORS: ReadonlySet<string> = new Set([
  "not_in_channel",
  "channel_not_found",
  "is_archived",
]);

interface HealthLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** The failing checks of this process, each with its reason in words. */
export class HealthState {
  private readonly failing = new Map<HealthCheck, string>();

  constructor(private readonly log: HealthLog) {}

  /** Marks a check failing (with why) or passing (undefined); logs only when that changes. */
  set(check: HealthCheck, reason: string | undefined): void {
    const before = this.failing.get(check);
    if (before === reason) return;
    if (reason === undefined) {
      this.failing.delete(check);
      this.log.info({ check }, `ready again: ${check} passes`);
    } else {
      this.failing.set(check, reason);
      this.log.warn({ check, reason }, `not ready: ${reason}`);
    }
  }

  /** Check -> reason, for every check failing now. */
  reasons(): ReadonlyMap<HealthCheck, string> {
    return this.failing;
  }

  failingChecks(): ReadonlySet<HealthCheck> {
    return new Set(this.failing.keys());
  }
}

/** What the bot learnt from Slack's answers, in one hash every process reads. */
export class SlackHealthBoard {
  /** The hash's fields as last read or written here: skips writes that change nothing. */
  private known: Record<string, string> = {};

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly state: HealthState,
  ) {}

  /** A Slack call succeeded in `channel` (or with no channel): the token works, the bot is there. */
  async succeeded(channel?: string): Promise<void> {
    const stale = ["auth", ...(channel ? [`channel:${channel}`] : [])].filter((f) => f in this.known);
    if (stale.length === 0) return;
    for (const field of stale) delete this.known[field];
    this.apply();
    await this.redis.hdel(this.key, ...stale);
  }

  /** Slack refused a call: recorded when the refusal is about the token or the channel. */
  async refused(error: string, channel?: string): Promise<void> {
    let field: string | undefined;
    if (SLACK_TOKEN_ERRORS.has(error)) field = "auth";
    else if (channel && SLACK_CHANNEL_ERRORS.has(error)) field = `channel:${channel}`;
    if (field === undefined || this.known[field] === error) return;
    this.known[field] = error;
    this.apply();
    await this.redis.hset(this.key, field, error);
  }

  /** Reads what every process has recorded. */
  async read(): Promise<void> {
    this.known = await this.redis.hgetall(this.key);
    this.apply();
  }

  private apply(): void {
    const auth = this.known.auth;
    this.state.set(
      "slack_auth",
      auth === undefined ? undefined : `Slack refuses the bot's token (${auth}): set SLACK_BOT_TOKEN again`,
    );
    const channels = Object.entries(this.known)
      .filter(([field]) => field.startsWith("channel:"))
      .map(([field, error]) => `${field.slice("channel:".length)} (${error})`)
      .sort();
    this.state.set(
      "slack_channel",
      channels.length === 0
        ? undefined
        : `the bot cannot post in ${channels.join(", ")}: invite it with /invite @iceberg-bot`,
    );
  }
}

export interface HealthMonitorOptions {
  state: HealthState;
  board: SlackHealthBoard;
  /** When the oldest message owed to Slack was written (undefined: nothing owed). */
  oldestOwedMs: () => Promise<number | undefined>;
  /** Messages owed longer than this make the process not ready. */
  delayedAfterMs: number;
  /** Slack's auth.test: resolves when the token works, rejects with Slack's error otherwise. */
  authTest: () => Promise<unknown>;
  /** The redis check (a primary that takes writes), recorded as it is read. */
  checkRedis: () => Promise<string | undefined>;
  now: () => number;
  /** How often the shared state and the outbox are read (default 2 s). */
  checkEveryMs?: number;
  /** How often auth.test is called (default 5 min; a post Slack refuses tells at once). */
  authEveryMs?: number;
  /** When auth.test last ran before the monitor started (the start-up check). */
  firstAuthAtMs?: number;
  onError?: (error: Error) => void;
}

export interface HealthMonitor {
  /** Runs one round now (tests and the start-up check). */
  tick(): Promise<void>;
  stop(): void;
}

/** Reads, on a timer, what makes this process ready; the state is kept in memory. */
export function startHealthMonitor(options: HealthMonitorOptions): HealthMonitor {
  const { state, board } = options;
  const checkEveryMs = options.checkEveryMs ?? 2_000;
  const authEveryMs = options.authEveryMs ?? 300_000;
  let lastAuthMs = options.firstAuthAtMs ?? Number.NEGATIVE_INFINITY;
  let running: Promise<void> | undefined;
  let stopped = false;

  const round = async () => {
    state.set("redis", await options.checkRedis());
    const now = options.now();
    if (now - lastAuthMs >= authEveryMs) {
      lastAuthMs = now;
      try {
        await options.authTest();
        await board.succeeded();
      } catch (error) {
        const code = (error as { data?: { error?: unknown } }).data?.error;
        // Slack away is not the token's fault: only a refusal is recorded.
        if (typeof code === "string") await board.refused(code);
      }
    }
    await board.read();
    const oldest = await options.oldestOwedMs();
    const waited = oldest === undefined ? 0 : now - oldest;
    state.set(
      "slack_delivery",
      waited > options.delayedAfterMs
        ? `messages owed to Slack have waited more than ${Math.round(options.delayedAfterMs / 1000)} s`
        : undefined,
    );
  };

  const tick = () => {
    running ??= round()
      .catch((error: unknown) => options.onError?.(error as Error))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped) return;
    void tick().finally(() => {
      if (!stopped) timer = setTimeout(loop, checkEveryMs);
    });
  };
  loop();
  return {
    tick,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** How late an incident's messages reached Slack at worst: the card says so (a note). */
export class SlackDelays {
  constructor(
    private readonly redis: RedisClient,
    private readonly key: (incidentId: string) => string,
  ) {}

  /** Records a message delivered `delayMs` late; true when the card should show a longer delay. */
  async record(incidentId: string, delayMs: number): Promise<boolean> {
    const grew = await runScript(
      this.redis,
      "slack-delay-record",
      [this.key(incidentId)],
      [String(Math.round(delayMs))],
    );
    return grew === 1;
  }

  async get(incidentId: string): Promise<number | undefined> {
    const value = await this.redis.get(this.key(incidentId));
    return value === null ? undefined : Number(value);
  }
}
