// The playbooks shipped in playbooks/, loaded once for tests that diagnose or propose.

import { loadPlaybooks } from "../../src/adapters/playbooks/files.js";

export const PLAYBOOK_SET = await loadPlaybooks();
export const PLAYBOOKS = PLAYBOOK_SET.playbooks;
