// The playbook walk of each incident, durable in Redis. Every change is a compare-and-set on a
// version field (one Lua script), so two clicks, two workers or two bot replicas never both win:
// the loser re-reads the new state and runs its event again. With an outbox, the messages a change
// owes Slack are appended in the same script as the record is saved (walk and outbox keys share
// one hash tag), so they are stored together or not at all.

import type { RemediationRecord, Versioned } from "../../core/remediation/record.js";
import { assertWritable, readRemediationRecord, WALK_FORMAT } from "../../core/remediation/record-format.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { Mutated, RemediationChange, RemediationMessage } from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import { createKeys } from "./keys.js";

const MAX_ATTEMPTS = 25;

/**
 * How a change's messages are saved with it (the Slack outbox, wired in by the process): the
 * outbox keys the script appends to and each message as an entry with its id left blank.
 */
export interface OwedWithWalk {
  now: () => number;
  appendKeys(incidentId: string): [seq: string, queue: string, due: string];
  entryJson(record: RemediationRecord, message: RemediationMessage, atMs: number): string;
}

export class RemediationStore {
  /** The incident's walk key. */
  readonly key: (incidentId: string) => string;

  constructor(
    private readonly redis: RedisClient,
    namespace?: string,
    /** When given, a change's messages are saved with it (same namespace, so the same hash tag). */
    private readonly withOutbox?: OwedWithWalk,
  ) {
    this.key = createKeys(namespace).walk;
  }

  async get(incidentId: string): Promise<Versioned<RemediationRecord> | undefined> {
    const [version, data] = await this.redis.hmget(this.key(incidentId), "version", "data");
    if (version === null || version === undefined || data === null || data === undefined) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      raw = undefined;
    }
    // Every read is validated, and a record of the previous format migrated (record-format.ts).
    return { version: Number(version), value: readRemediationRecord(raw, incidentId) };
  }

  /**
   * Runs `change` on the current record (undefined when there is none) and stores its result,
   * retrying on a concurrent write. `change` must be pure: it may run more than once.
   * Returning undefined leaves the record as it is.
   */
  async mutate<R>(incidentId: string, change: RemediationChange<R>): Promise<Mutated<R>> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.get(incidentId);
      // A walk a newer release stored is never acted on here: writing it back would drop what it added.
      if (current) assertWritable(current.value);
      const next = change(current?.value);
      if (!next) return { record: current?.value, changed: false };
      const version = String(current?.version ?? 0);
      const data = JSON.stringify({ ...next.record, format: WALK_FORMAT });
      const stored = this.withOutbox
        ? await this.saveWithOutbox(incidentId, version, data, next.record, next.messages ?? [])
        : await runScript(this.redis, "remediation-save", [this.key(incidentId)], [version, data]);
      if (Number(stored) === 1)
        return {
          record: next.record,
          result: next.result,
          changed: true,
          messagesRecorded: this.withOutbox !== undefined,
        };
    }
    throw new CodedError(
      ErrorCode.ChangeInProgress,
      `The playbook state of ${incidentId} kept changing under this update`,
      { retryable: true, hint: "Many clicks arrived at once; the action is retried." },
    );
  }

  private saveWithOutbox(
    incidentId: string,
    version: string,
    data: string,
    record: RemediationRecord,
    messages: readonly RemediationMessage[],
  ): Promise<unknown> {
    const owed = this.withOutbox as OwedWithWalk;
    const at = owed.now();
    const entries = messages.map((m) => owed.entryJson(record, m, at));
    return runScript(
      this.redis,
      "remediation-save-with-outbox",
      [this.key(incidentId), ...owed.appendKeys(incidentId)],
      [version, data, String(at), incidentId, ...entries],
    );
  }
}
