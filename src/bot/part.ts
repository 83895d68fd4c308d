// The parts the composition root assembles (connections, queues, workers, schedulers, the
// receiver): each starts and stops, and the lifecycle stops them in the reverse of the order
// they started, so nothing is stopped while a part started after it still uses it.

import type { Logger } from "pino";

export interface Part {
  /** Named in the shutdown log. */
  readonly name: string;
  start?(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/**
 * How long one part may take to stop before the next one is stopped anyway: a part waiting on a
 * Redis that no longer answers (a blocking read on a dead Cluster node) must not keep the rest,
 * and the connections that would release it, from stopping.
 */
const PART_STOP_MS = 8_000;

export class Lifecycle {
  private readonly started: Part[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly log: Pick<Logger, "info" | "warn">,
    private readonly partStopMs = PART_STOP_MS,
  ) {}

  /** Starts a part; once started it is stopped with the others, whatever happens after. */
  async start<P extends Part>(part: P): Promise<P> {
    await part.start?.();
    this.started.push(part);
    return part;
  }

  /** Stops every started part, last started first; a part that fails to stop does not stop the rest. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      let failure: unknown;
      for (const part of [...this.started].reverse()) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<"late">((resolve) => {
          timer = setTimeout(() => resolve("late"), this.partStopMs);
        });
        try {
          const outcome = await Promise.race([Promise.resolve(part.stop()), late]);
          if (outcome === "late")
            this.log.warn(
              { part: part.name, waitedMs: this.partStopMs },
              "part did not stop in time; stopping the rest",
            );
        } catch (error) {
          failure ??= error;
          this.log.warn({ part: part.name, err: String(error) }, "part did not stop cleanly");
        } finally {
          clearTimeout(timer);
        }
      }
      if (failure !== undefined) throw failure;
    })();
    return this.stopping;
  }
}
