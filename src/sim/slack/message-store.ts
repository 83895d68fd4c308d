// Messages the stand-in accepted, keyed by channel and ts, with Slack-shaped ts values that only
// ever increase (seconds + six digits), so tests can order and compare them.

import type { MessageVersion, StoredMessage } from "./types.js";

const TS_STEP_MICROS = 100;

export class MessageStore {
  private readonly messages = new Map<string, StoredMessage>();
  private readonly deleted = new Set<string>();
  private seconds: number;
  private micros = 0;

  constructor(firstTsSeconds: number) {
    this.seconds = firstTsSeconds;
  }

  nextTs(): string {
    this.micros += TS_STEP_MICROS;
    if (this.micros >= 1_000_000) {
      this.seconds += 1;
      this.micros = TS_STEP_MICROS;
    }
    return `${this.seconds}.${String(this.micros).padStart(6, "0")}`;
  }

  add(message: Omit<StoredMessage, "edits" | "versions">): StoredMessage {
    const stored: StoredMessage = {
      ...message,
      edits: 0,
      versions: [{ text: message.text, blocks: message.blocks }],
    };
    this.messages.set(key(message.channel, message.ts), stored);
    return stored;
  }

  get(channel: string, ts: string): StoredMessage | undefined {
    const k = key(channel, ts);
    return this.deleted.has(k) ? undefined : this.messages.get(k);
  }

  update(channel: string, ts: string, version: MessageVersion): StoredMessage | undefined {
    const message = this.get(channel, ts);
    if (message === undefined) return undefined;
    message.text = version.text;
    message.blocks = version.blocks;
    message.edits += 1;
    message.versions.push(version);
    return message;
  }

  delete(channel: string, ts: string): boolean {
    if (this.get(channel, ts) === undefined) return false;
    this.deleted.add(key(channel, ts));
    return true;
  }

  list(channel?: string): StoredMessage[] {
    return [...this.messages.entries()]
      .filter(([k, m]) => !this.deleted.has(k) && (channel === undefined || m.channel === channel))
      .map(([, m]) => m)
      .sort((a, b) => compareTs(a.ts, b.ts));
  }

  thread(channel: string, ts: string): StoredMessage[] {
    const root = this.get(channel, ts);
    if (root === undefined) return [];
    const replies = this.list(channel).filter(
      (m) => m.thread_ts === ts && m.ts !== ts && m.ephemeralUser === undefined,
    );
    return [root, ...replies];
  }
}

function key(channel: string, ts: string): string {
  return `${channel}/${ts}`;
}

export function compareTs(a: string, b: string): number {
  const [as = "0", am = "0"] = a.split(".");
  const [bs = "0", bm = "0"] = b.split(".");
  return Number(as) - Number(bs) || Number(am) - Number(bm);
}
