// What people do in an incident's thread besides pressing the playbook's buttons: the replies they
// write (kept for the postmortem's timeline; the bot never answers them) and "I'm on it" on the
// card. The receiver hands both here; the card is edited through the outbox when its owner changes.

import type { Incident } from "../../core/incident/model.js";
import type { PeopleStore } from "../store/people-store.js";

interface ThreadReply {
  channel: string;
  threadTs: string;
  ts: string;
  user: string;
  text: string;
}

export interface ThreadPeople {
  /** A person's reply in a channel thread: kept when the thread is an open incident's. */
  reply(reply: ThreadReply): Promise<boolean>;
  /** "I'm on it": the first person to claim the incident is its owner. */
  claim(incidentId: string, user: string): Promise<boolean>;
}

export interface ThreadPeopleDeps {
  people: Pick<PeopleStore, "addRemark" | "claimFor">;
  store: { listOpen(): Promise<Incident[]>; get(id: string): Promise<Incident | undefined> };
  /** Queues an edit of the incident's card (the outbox). */
  editCard(incident: Incident): Promise<void>;
  /** The incidents' clock: remarks are timed as the rest of the story is. */
  now: () => number;
}

export function threadPeople(deps: ThreadPeopleDeps): ThreadPeople {
  return {
    async reply(reply) {
      const open = await deps.store.listOpen();
      const incident = open.find((i) => i.channel === reply.channel && i.rootTs === reply.threadTs);
      if (!incident || reply.text.trim() === "") return false;
      return deps.people.addRemark(incident.id, reply.ts, {
        atMs: deps.now(),
        user: reply.user,
        text: reply.text,
      });
    },
    async claim(incidentId, user) {
      const incident = await deps.store.get(incidentId);
      if (!incident || incident.state === "resolved" || incident.state === "stopped") return false;
      const claimed = await deps.people.claimFor(incidentId, user, deps.now());
      if (claimed) await deps.editCard(incident);
      return claimed;
    },
  };
}
