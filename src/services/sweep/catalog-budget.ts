// The catalog as one sweep in one process sees it (the `sweep` command): every round trip is
// counted against the sweep's budget, kept under a request rate (the same sweep.ratePerSecond the
// bot's workers share), and a 429 with Retry-After is waited out as the catalog asks instead of
// being hammered again. The bot's workers get the same from BullMQ's limiter (sweep-queue.ts).

import type { TableRef } from "../../core/evidence/model.js";
import { type BudgetLimit, type BudgetLimits, exhausted } from "../../core/sweep/budget.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { CatalogPort } from "../ports.js";

export interface MeterOptions {
  limits: BudgetLimits;
  /** Requests per second; a burst of one second's worth is allowed. */
  perSecond: number;
  /** Monotonic milliseconds for the rate and the time budget. */
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** How many times one request waits out a 429 before giving up. */
  retries?: number;
}

export interface CatalogMeter {
  readonly spent: { requests: number; namespaces: number; tables: number };
  /** Counts a namespace or table the walk takes on; throws once a limit is reached. */
  take(kind: "namespaces" | "tables"): void;
  /** The limit reached, if any (checked before each request). */
  reached(): BudgetLimit | undefined;
  /** Waits for a slot under the rate, counting one request. */
  request<T>(send: () => Promise<T>): Promise<T>;
  /** How long the walk waited on the rate and on Retry-After, in ms. */
  readonly waitedMs: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function budgetError(limit: BudgetLimit): CodedError {
  return new CodedError(ErrorCode.BudgetExhausted, `The sweep stopped at its ${limit} budget`, {
    hint: "Raise sweep.budget in BOT_CONFIG if the catalog is really this large, or check it for loops.",
    details: { limit },
  });
}

export function createCatalogMeter(options: MeterOptions): CatalogMeter {
  const clock = options.clock ?? (() => performance.now());
  const sleep = options.sleep ?? realSleep;
  const startedAt = clock();
  const perSecond = Math.max(0.01, options.perSecond);
  const burst = Math.max(1, Math.floor(perSecond));
  const spent = { requests: 0, namespaces: 0, tables: 0 };
  let tokens = burst;
  let refilledAt = startedAt;
  let waitedMs = 0;
  // Requests queue for slots one after another, so concurrent table loads share one rate.
  let line: Promise<void> = Promise.resolve();

  const reached = () => exhausted(options.limits, spent, startedAt, clock());

  async function slot(): Promise<void> {
    for (;;) {
      const now = clock();
      tokens = Math.min(burst, tokens + ((now - refilledAt) * perSecond) / 1000);
      refilledAt = now;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      const wait = Math.ceil(((1 - tokens) * 1000) / perSecond);
      waitedMs += wait;
      await sleep(wait);
    }
  }

  return {
    spent,
    get waitedMs() {
      return waitedMs;
    },
    take(kind) {
      spent[kind]++;
      const limit = reached();
      if (limit) throw budgetError(limit);
    },
    reached,
    async request(send) {
      for (let attempt = 0; ; attempt++) {
        const limit = reached();
        if (limit) throw budgetError(limit);
        const turn = line.then(slot);
        line = turn.catch(() => {});
        await turn;
        spent.requests++;
        try {
          return await send();
        } catch (error) {
          const coded = asCodedError(error);
          const retryAfterMs = coded.details?.retryAfterMs;
          const status = coded.details?.status;
          if ((status !== 429 && status !== 503) || typeof retryAfterMs !== "number") throw error;
          if (attempt >= (options.retries ?? 5)) throw error;
          // Waiting past the time budget is pointless: stop now and say so.
          if (clock() + retryAfterMs - startedAt >= options.limits.timeMs) throw error;
          waitedMs += retryAfterMs;
          // Everyone waits: the catalog asked the whole client to slow down.
          const pause = sleep(retryAfterMs);
          line = line.then(() => pause);
          await pause;
        }
      }
    },
  };
}

/** The catalog port with every call going through the meter. */
export function meteredCatalog(catalog: CatalogPort, meter: CatalogMeter): CatalogPort {
  return {
    url: catalog.url,
    getConfig: () => meter.request(() => catalog.getConfig()),
    listNamespaces: (parent) => meter.request(() => catalog.listNamespaces(parent)),
    listTables: (namespace) => meter.request(() => catalog.listTables(namespace)),
    listNamespacesPage: (parent, token) => meter.request(() => catalog.listNamespacesPage(parent, token)),
    listTablesPage: (namespace, token) => meter.request(() => catalog.listTablesPage(namespace, token)),
    loadTable: (ref: TableRef) => meter.request(() => catalog.loadTable(ref)),
    commitProperties: (ref, commit) => catalog.commitProperties(ref, commit),
  };
}
