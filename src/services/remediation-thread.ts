// Messages in an incident's thread: posted at most once per name (claims in Redis guard it across
// processes and retried jobs) and edited in place afterwards.

import type { SlackMessage } from "../adapters/slack/render/block-kit.js";
import type { WalkRecord } from "../adapters/store/walk-store.js";
import type { RemediationDeps } from "./remediation-deps.js";

export class ThreadPoster {
  constructor(private readonly deps: RemediationDeps) {}

  /** Waits (bounded) for the diagnosis message, so the proposal lands under it in the thread. */
  async waitForDiagnosis(record: WalkRecord): Promise<void> {
    const n = record.proposedForDiagnosis;
    if (n === undefined) return;
    const deadline = Date.now() + (this.deps.diagnosisWaitMs ?? 15_000);
    while (Date.now() < deadline) {
      if (await this.deps.claims.messageTs(record.incidentId, `diagnosis-${n}`)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async rootTs(record: WalkRecord): Promise<string | undefined> {
    const deadline = Date.now() + (this.deps.diagnosisWaitMs ?? 15_000);
    for (;;) {
      const incident = await this.deps.store.get(record.incidentId);
      if (incident?.rootTs) return incident.rootTs;
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Posts a thread message at most once per name (claims guard it across processes and retries). */
  async postOnce(record: WalkRecord, name: string, message: SlackMessage): Promise<string | undefined> {
    const owner = `remediation-${process.pid}-${name}`;
    const claim = await this.deps.claims.claim(record.incidentId, name, owner);
    if (claim.kind === "done") return claim.ts;
    if (claim.kind === "held-by-other") return undefined;
    try {
      const threadTs = await this.rootTs(record);
      const result = await this.deps.slack.chat.postMessage({
        channel: record.channel,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        text: message.text,
        blocks: message.blocks,
      });
      const ts = String(result.ts);
      await this.deps.claims.complete(record.incidentId, name, ts);
      return ts;
    } catch (error) {
      await this.deps.claims.release(record.incidentId, name, owner);
      throw error;
    }
  }

  /** One message edited in place: posted the first time, updated afterwards. */
  async upsert(record: WalkRecord, name: string, message: SlackMessage): Promise<void> {
    const ts = await this.deps.claims.messageTs(record.incidentId, name);
    if (!ts) {
      await this.postOnce(record, name, message);
      return;
    }
    await this.deps.slack.chat.update({
      channel: record.channel,
      ts,
      text: message.text,
      blocks: message.blocks,
    });
  }
}
