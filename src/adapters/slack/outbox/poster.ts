// The only sender of the outbox's entries: it takes the queues that are due, each leased to it,
// and sends their entries strictly in order (send.ts says what one entry sends). One attempt is
// one request (the Web client's own retries are off); a failed attempt waits with capped
// exponential backoff (or Slack's Retry-After) and is tried again for as long as `giveUpAfterMs`
// allows, holding back the queue's later entries so a thread keeps its order.

import { ErrorCode, isCodedError } from "../../../errors.js";
import { deliverySpec } from "./deliveries.js";
import type { SlackOutbox, SlackOutboxEntry } from "./outbox.js";
import { DONE, EntrySender, type Outcome, type SenderDeps } from "./send.js";

export { OUTBOX_EVENT_TYPE, rootOutboxId } from "./send.js";

export interface BackoffSettings {
  /** First wait after a failed attempt (default 1 s); doubled each time. */
  baseMs: number;
  /** Longest wait between attempts (default 5 min). */
  capMs: number;
  /** After this long an entry is dropped with an error in the log (default 6 h). */
  giveUpAfterMs: number;
}

const DEFAULT_BACKOFF: BackoffSettings = {
  baseMs: 1000,
  capMs: 300_000,
  giveUpAfterMs: 6 * 3_600_000,
};

export interface PosterDeps extends SenderDeps {
  outbox: SlackOutbox;
  /** Counts a message owed to Slack that was given up on: refused for good, past giveUpAfterMs, or unreadable. */
  onDropped?: (reason: "rejected" | "expired" | "invalid") => void;
  backoff?: Partial<BackoffSettings>;
  /** How often due entries are looked for (default 100 ms). */
  pollMs?: number;
  /** How long a queue stays with the poster that took it (default 30 s): a dead poster's is taken over. */
  leaseMs?: number;
  /** Told what Slack's answers say about the token and the channel (readiness, adapters/http/health.ts). */
  health?: {
    succeeded(channel?: string): Promise<void>;
    refused(error: string, channel?: string): Promise<void>;
  };
  /** A delivery later than `afterMs` is recorded; when the worst delay grew, the card is edited to say so. */
  late?: { afterMs: number; record(incidentId: string, delayMs: number): Promise<boolean> };
}

export class OutboxPoster {
  private readonly backoff: BackoffSettings;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Incidents leased to this poster whose drain failed, with when the lease runs out. */
  private readonly interrupted = new Map<string, number>();
  /** Entries a newer release wrote, already logged by this process (each is logged once). */
  private readonly leftForNewer = new Set<string>();

  private readonly sender: EntrySender;

  constructor(private readonly deps: PosterDeps) {
    this.sender = new EntrySender(deps);
    this.backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
    this.leaseMs = deps.leaseMs ?? 30_000;
  }

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.drain()
        .catch((error: unknown) => this.deps.log.warn({ err: String(error) }, "outbox poll failed"))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.deps.pollMs ?? 100);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Sends what is due now; resolves when every claimed queue has been worked through. */
  async drain(): Promise<void> {
    const now = this.deps.now();
    // A queue whose drain broke off (Redis went away mid-way) is still leased to this poster:
    // take it up again as soon as Redis answers, not a whole lease later.
    const resumed = [...this.interrupted].filter(([, until]) => until > now).map(([id]) => id);
    if (resumed.length > 0) await this.deps.outbox.renewLease(resumed, now + this.leaseMs);
    const claimed = await this.deps.outbox.claimDue(now, this.leaseMs, 50);
    this.interrupted.clear();
    const queues = [...new Set([...resumed, ...claimed])];
    const results = await Promise.allSettled(queues.map((id) => this.drainQueue(id)));
    let failure: unknown;
    results.forEach((result, i) => {
      if (result.status === "fulfilled") return;
      this.interrupted.set(queues[i]!, now + this.leaseMs);
      failure ??= result.reason;
    });
    if (failure !== undefined) throw failure;
  }

  private async drainQueue(queueId: string): Promise<void> {
    for (;;) {
      const entry = await this.readHead(queueId);
      if (!entry || entry === "later") return;
      const { kind } = entry.delivery;
      const spec = deliverySpec(entry.delivery);
      // A named view followed by a newer version of it shows nothing the later one will not.
      const next = spec?.replacedBy ? await this.deps.outbox.next(queueId) : undefined;
      const skipped =
        next?.delivery.kind === kind &&
        spec?.replacedBy?.(next.delivery) === spec?.replacedBy?.(entry.delivery);
      const outcome = skipped ? DONE : await this.sender.deliver(entry);
      const now = this.deps.now();
      if (!skipped) await this.tellHealth(entry, outcome);
      if (!skipped && outcome.kind === "done" && spec?.scope !== "none" && !spec?.waits)
        await this.noteLate(entry, now);
      if (outcome.kind === "done") {
        // Due again a lease ahead: this poster goes on with the next entry, and no other may
        // take the queue meanwhile (two posters on one queue would post its head twice).
        await this.deps.outbox.done(entry, now + this.leaseMs);
        continue;
      }
      const attempt = await this.deps.outbox.attempt(entry.id);
      if (outcome.kind === "wait") return this.deps.outbox.retryAt(entry, attempt, now + outcome.ms);
      const tried = { attempts: attempt.attempts + 1, unknown: attempt.unknown || outcome.unknown };
      this.deps.onSlackError?.(`outbox.${kind}`);
      const expired = now - entry.createdAtMs > this.backoff.giveUpAfterMs;
      if (outcome.permanent || expired) {
        this.deps.onDropped?.(outcome.permanent ? "rejected" : "expired");
        this.deps.log.error(
          { incidentId: entry.incidentId, entry: entry.id, kind, err: outcome.error },
          outcome.permanent
            ? "Slack refused the message for good; going on with the next one"
            : "Slack message given up",
        );
        await this.deps.outbox.done(entry, now + this.leaseMs);
        continue;
      }
      const backoff = Math.min(this.backoff.capMs, this.backoff.baseMs * 2 ** (tried.attempts - 1));
      this.deps.log.warn(
        { incidentId: entry.incidentId, entry: entry.id, attempt: tried.attempts, err: outcome.error },
        "Slack message not delivered yet",
      );
      return this.deps.outbox.retryAt(entry, tried, now + Math.max(backoff, outcome.retryAfterMs ?? 0));
    }
  }

  /**
   * The queue's head, or "later" when it cannot be read: one a newer release wrote stays in place
   * for its poster (the queue is looked at again after the backoff cap, and the entry logged once
   * per process); one no release could have written is dropped, counted and logged.
   */
  private async readHead(queueId: string): Promise<SlackOutboxEntry | undefined | "later"> {
    try {
      return await this.deps.outbox.head(queueId);
    } catch (error) {
      if (!isCodedError(error, ErrorCode.StoredRecordInvalid)) throw error;
      const now = this.deps.now();
      if (error.details?.newer) {
        const seen = `${queueId}|${error.message}`;
        if (!this.leftForNewer.has(seen)) {
          this.leftForNewer.add(seen);
          this.deps.log.error(
            { incidentId: queueId, err: error.message, hint: error.hint },
            "a Slack message this release cannot send, left for a newer one",
          );
        }
        await this.deps.outbox.renewLease([queueId], now + this.backoff.capMs);
        return "later";
      }
      this.deps.log.error(
        { incidentId: queueId, err: error.message, hint: error.hint },
        "an unreadable Slack message dropped",
      );
      this.deps.onDropped?.("invalid");
      await this.deps.outbox.dropUnreadableHead(queueId, now + this.leaseMs);
      return this.readHead(queueId);
    }
  }

  private async noteLate(entry: SlackOutboxEntry, now: number): Promise<void> {
    const { late } = this.deps;
    const delayMs = now - entry.createdAtMs;
    if (!late || delayMs <= late.afterMs) return;
    try {
      if (await late.record(entry.incidentId, delayMs))
        await this.deps.outbox.append(entry.incidentId, entry.channel, now, { kind: "card" });
    } catch (error) {
      this.deps.log.warn({ err: String(error) }, "a late Slack message not noted on the card");
    }
  }

  private async tellHealth(entry: SlackOutboxEntry, outcome: Outcome): Promise<void> {
    const { health } = this.deps;
    if (!health) return;
    // App Home publishes name no channel: they say only that the token works.
    const channel = entry.delivery.kind === "home" ? undefined : entry.channel;
    try {
      if (outcome.kind === "done") await health.succeeded(channel);
      else if (outcome.kind === "failed") await health.refused(outcome.error, channel);
    } catch (error) {
      this.deps.log.warn({ err: String(error) }, "readiness not updated from Slack's answer");
    }
  }
}
