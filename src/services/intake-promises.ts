// Intake promises: the work an alert's intake promised (the root message and first diagnosis of an
// incident it opened, a card edit), recorded by the intake script itself, atomically with the
// incident, since BullMQ's add cannot join that script. The receiver keeps them right after its
// answer; the promise keeper keeps what a dead receiver left (every few seconds, in a worker).
// Not a BullMQ queue for that reason; the store side is adapters/store/incident-store.ts.

import type { IncidentDeps } from "./incident/deps.js";
import type { IntakePromise } from "./ports.js";

/**
 * Queues the work behind intake promises, then clears them. Diagnosis job ids are fixed by the
 * promise and the poster posts each name once, so keeping a promise twice (the receiver and the
 * promise keeper both) adds nothing.
 */
export async function queuePromised(
  deps: Pick<IncidentDeps, "queues" | "slack" | "store">,
  entries: readonly IntakePromise[],
): Promise<void> {
  await Promise.all(
    entries.map(async (entry) => {
      if (entry.kind === "open") {
        await Promise.all([
          deps.slack.send({ kind: "root", incidentId: entry.incidentId }),
          deps.queues.enqueueDiagnose({ kind: "incident", incidentId: entry.incidentId, n: 1 }),
        ]);
      } else {
        await deps.slack.send({
          kind: "card",
          incidentId: entry.incidentId,
          version: entry.version,
        });
      }
    }),
  );
  await deps.store.promisesKept(entries);
}

/** Promises older than this are taken as abandoned by the process that recorded them. */
const INTAKE_PROMISE_GRACE_MS = 10_000;

/** Keeps the promises a receiver recorded but did not get to keep (it died, Redis blinked). */
export async function keepIntakePromises(
  deps: Pick<IncidentDeps, "queues" | "slack" | "store">,
  graceMs = INTAKE_PROMISE_GRACE_MS,
): Promise<number> {
  const due = await deps.store.duePromises(graceMs);
  if (due.length > 0) await queuePromised(deps, due);
  return due.length;
}
