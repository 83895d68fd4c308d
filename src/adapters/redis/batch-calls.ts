// Calls made close together reach Redis as one request: a burst of Slack requests arrives over
// many socket reads, and a write per call was, in the receiver's profile, most of what the calls
// cost. Each caller still gets its own answer (or the batch's error).

export interface BatchOptions<I, R> {
  /** Sends one batch and returns one answer per item, in order. */
  send(batch: readonly I[]): Promise<readonly R[]>;
  /** Bounds one request's size and the time its answers take to hand out. */
  maxBatch: number;
  /**
   * How long the first call waits for others: absent, until the end of this turn of the event
   * loop; a few milliseconds gather the calls of several turns.
   */
  waitMs?: number;
  /**
   * With waitMs: the batch leaves as soon as no call has come for this long, and at the latest
   * waitMs after its first call. A burst is then sent once it is over, not in its middle.
   */
  quietMs?: number;
}

interface Pending<I, R> {
  item: I;
  resolve: (answer: R) => void;
  reject: (error: unknown) => void;
}

export function batchCalls<I, R>(options: BatchOptions<I, R>): (item: I) => Promise<R> {
  const pending: Pending<I, R>[] = [];
  let scheduled = false;
  let timer: NodeJS.Timeout | undefined;
  let quiet: NodeJS.Timeout | undefined;

  const schedule = () => {
    scheduled = true;
    if (options.waitMs === undefined) setImmediate(flush);
    else timer = setTimeout(flush, options.waitMs);
  };

  async function flush(): Promise<void> {
    clearTimeout(timer);
    clearTimeout(quiet);
    quiet = undefined;
    scheduled = false;
    const batch = pending.splice(0, options.maxBatch);
    if (batch.length === 0) return;
    if (pending.length > 0) schedule();
    try {
      const answers = await options.send(batch.map((p) => p.item));
      batch.forEach((p, index) => {
        p.resolve(answers[index] as R);
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (pending.length >= options.maxBatch) void flush();
      else {
        if (!scheduled) schedule();
        if (options.quietMs !== undefined && options.waitMs !== undefined) {
          // Restarted by every call (refresh() re-arms the same timer).
          if (quiet) quiet.refresh();
          else quiet = setTimeout(flush, options.quietMs);
        }
      }
    });
}
