// The playbook walk of each incident, durable in Redis. Every change is a compare-and-set on a
// version field (one Lua script), so two clicks, two workers or two bot replicas never both win:
// the loser re-reads the new state and runs its event again.

import type { Versioned, WalkRecord } from "../../core/playbook/record.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { RedisClient } from "../redis/connection.js";
import { DEFAULT_NAMESPACE } from "./keys.js";

export type { ProposalRef, Versioned, WalkRecord } from "../../core/playbook/record.js";

// KEYS: the walk hash. ARGV: expected version ("0" when absent), new data.
const COMPARE_AND_SET = `
local v = redis.call('HGET', KEYS[1], 'version')
if (v or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', tostring(tonumber(ARGV[1]) + 1), 'data', ARGV[2])
return 1
`;

const MAX_ATTEMPTS = 25;

export class WalkStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: RedisClient,
    namespace: string = DEFAULT_NAMESPACE,
  ) {
    this.prefix = `{${namespace}}`;
  }

  key(incidentId: string): string {
    return `${this.prefix}:walk:${incidentId}`;
  }

  async get(incidentId: string): Promise<Versioned<WalkRecord> | undefined> {
    const [version, data] = await this.redis.hmget(this.key(incidentId), "version", "data");
    if (version === null || version === undefined || data === null || data === undefined) return undefined;
    return { version: Number(version), value: JSON.parse(data) as WalkRecord };
  }

  /**
   * Runs `change` on the current record (undefined when there is none) and stores its result,
   * retrying on a concurrent write. `change` must be pure: it may run more than once.
   * Returning undefined leaves the record as it is.
   */
  async mutate<R>(
    incidentId: string,
    change: (current: WalkRecord | undefined) => { record: WalkRecord; result: R } | undefined,
  ): Promise<{ record: WalkRecord | undefined; result?: R; changed: boolean }> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.get(incidentId);
      const next = change(current?.value);
      if (!next) return { record: current?.value, changed: false };
      const stored = await this.redis.eval(
        COMPARE_AND_SET,
        1,
        this.key(incidentId),
        String(current?.version ?? 0),
        JSON.stringify(next.record),
      );
      if (Number(stored) === 1) return { record: next.record, result: next.result, changed: true };
    }
    throw new CodedError(
      ErrorCode.ChangeInProgress,
      `The playbook state of ${incidentId} kept changing under this update`,
      { retryable: true, hint: "Many clicks arrived at once; the action is retried." },
    );
  }
}
