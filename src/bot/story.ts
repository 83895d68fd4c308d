// Where a process reads an incident's story from besides the incident store: the remediation records,
// the playbooks and what people said in the thread.

import type { StorySources } from "../adapters/slack/story-source.js";
import { PeopleStore } from "../adapters/store/people-store.js";
import { RemediationStore } from "../adapters/store/remediation-store.js";
import type { Shared } from "./shared.js";

export function storySources(shared: Pick<Shared, "connections" | "options" | "playbooks" | "store">) {
  return {
    walks: new RemediationStore(shared.connections.redis, shared.options.namespace),
    playbooks: shared.playbooks,
    people: new PeopleStore(shared.connections.redis, shared.store.keys),
  } satisfies Omit<StorySources, "store">;
}
