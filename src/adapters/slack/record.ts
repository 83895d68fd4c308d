// The receiver's one job for an interaction: record it in Redis (a queued job) before answering.
// When Redis is away the person is told at once, through the ack or the response_url (neither
// needs Redis), and nothing is left waiting to be recorded behind their back: the attempt is not
// even started unless the connection is up, and is bounded well inside Slack's 3 s.

import type { RespondFn } from "@slack/bolt";
import { asCodedError } from "../../errors.js";
import type { LogLike } from "../../services/incident/deps.js";
import { withDeadline } from "../../util/deadline.js";

/** What a person sees when their click, submission or command could not be recorded. */
export const NOT_RECORDED_TEXT = "Could not record this, try again in a moment.";

/** Leaves room for the ack itself inside Slack's 3 s. */
const RECORD_TIMEOUT_MS = 1500;

export interface Recorder {
  /** True when `work` finished in time; false (and logged) when Redis is away, slow or failing. */
  record(what: string, work: () => Promise<unknown>): Promise<boolean>;
  /** Whether Redis can be asked at all right now (a check of the connection, not a round trip). */
  ready(): boolean;
}

export function recorder(ready: () => boolean, log: LogLike): Recorder {
  return {
    ready,
    async record(what, work) {
      if (!ready()) {
        log.warn({ what }, "redis unavailable, interaction not recorded");
        return false;
      }
      try {
        await withDeadline(work(), RECORD_TIMEOUT_MS, `no answer from Redis in ${RECORD_TIMEOUT_MS} ms`);
        return true;
      } catch (error) {
        log.warn(
          { what, err: error instanceof Error ? error.message : String(error) },
          "interaction not recorded",
        );
        return false;
      }
    },
  };
}

/** Told after NOT_RECORDED_TEXT when Redis took the interaction after all. */
export const RECORDED_LATE_TEXT = "Redis was slow, but this went through after all: no need to do it again.";

/** Through the response_url: needs no Redis, shown only to the person who clicked. */
export async function tellNotRecorded(respond: RespondFn, log: LogLike): Promise<void> {
  await tellPrivately(respond, log, NOT_RECORDED_TEXT);
}

export async function tellRecordedLate(respond: RespondFn, log: LogLike): Promise<void> {
  await tellPrivately(respond, log, RECORDED_LATE_TEXT);
}

async function tellPrivately(respond: RespondFn, log: LogLike, text: string): Promise<void> {
  await respond({ response_type: "ephemeral", replace_original: false, text }).catch((error: unknown) =>
    log.warn({ err: asCodedError(error).message }, "response_url reply failed"),
  );
}
