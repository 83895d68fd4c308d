// The worker half of `start`, in its own process: it gets the config from its parent over IPC,
// runs the queue workers, and drains them when asked to stop, on SIGTERM, or when the parent is
// gone. SIGINT is left to the parent (a terminal's Ctrl-C reaches both), which stops the
// receiver first and then asks this process to stop.

import { startBot } from "./main.js";
import type { ChildMessage, ParentMessage } from "./worker-supervisor.js";

const send = (message: ChildMessage) => process.send?.(message);

// The log pipe is the parent's: it may close before this process has drained (a parent killed, a
// benchmark that ended). Losing the log lines must not crash the drain, so the process goes on
// stopping as asked, silent.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
});
let stop: (() => Promise<void>) | undefined;
let stopping = false;

const shutdown = () => {
  if (stopping) return;
  stopping = true;
  // A stop that arrives while starting waits for the start (then stops what it started).
  void Promise.resolve(starting)
    .then(() => stop?.())
    .finally(() => process.exit(0));
};

let starting: Promise<void> | undefined;
process.on("message", (message: ParentMessage) => {
  if (message.type === "start" && !starting) {
    starting = startBot(message.config, { ...message.options, role: "worker" }).then(
      (bot) => {
        stop = bot.stop;
        send({ type: "ready" });
      },
      (error: unknown) => {
        send({ type: "failed", message: (error as Error).message });
        process.exit(1);
      },
    );
  } else if (message.type === "stop") shutdown();
});
process.on("SIGTERM", shutdown);
process.on("SIGINT", () => {});
process.on("disconnect", shutdown);
