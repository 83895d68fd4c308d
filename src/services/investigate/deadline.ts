// One deadline per evidence source, so a slow source cannot hold up the others or the answer.

import type { SourceName } from "../../core/ids.js";
import { SOURCE_WORDS } from "../../core/words/labels.js";
import { CodedError, ErrorCode } from "../../errors.js";

export async function withDeadline<T>(
  source: SourceName,
  timeoutMs: number,
  run: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new CodedError(
          ErrorCode.SourceTimeout,
          `${SOURCE_WORDS[source]}: no complete answer within ${timeoutMs} ms`,
          {
            hint: "The source is slow; check its health, or allow more time with --timeout-ms.",
            retryable: true,
            details: { source, timeoutMs },
          },
        ),
      );
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
