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

export class Lifecycle {
  private readonly started: Part[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly log: Pick<Logger, "info" | "warn">) {}

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
        try {
          await part.stop();
        } catch (error) {
          failure ??= error;
          this.log.warn({ part: part.name, err: String(error) }, "part did not stop cleanly");
        }
      }
      if (failure !== undefined) throw failure;
    })();
    return this.stopping;
  }
}
