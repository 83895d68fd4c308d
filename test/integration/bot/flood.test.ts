// A flood of identical `/iceberg diagnose` (one person, 94 times in a second) is one evidence read
// and one answer in the channel, not 94 of each.

import { afterEach, describe, expect, it } from "vitest";
import { postSigned, slashCommandBody } from "../../support/slack-signing.js";
import { CHANNEL, eventually, type Harness, quiescent, startHarness } from "./harness.js";

const FORM = "application/x-www-form-urlencoded";
const FLOOD = 94;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a flood of identical requests", () => {
  it(`answers ${FLOOD} identical /iceberg diagnose with one evidence read and one post`, async () => {
    // The bot's clock runs from the start of a rate window, so the flood falls in one window
    // (on the wall clock it may straddle a minute, and a new window rightly answers again).
    const windowStart = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    const offset = windowStart + 1000 - Date.now();
    h = await startHarness("flood-diagnose", {
      scenario: "competing-appends",
      botOptions: { wallClock: () => Date.now() + offset },
    });
    const harness = h;
    const lake = harness.lakehouse!;
    const before = lake.requests.length;
    const acks = await Promise.all(
      Array.from({ length: FLOOD }, () =>
        postSigned(
          harness.url("/slack/events"),
          harness.secret,
          slashCommandBody({ text: "diagnose db.events", userId: "U0FLOOD", channelId: CHANNEL }),
          FORM,
        ),
      ),
    );
    expect(acks.every((a) => a.status === 200)).toBe(true);
    const posts = () =>
      harness.standIn.messages(CHANNEL).filter((m) => !m.ephemeralUser && /db\.events/.test(m.text));
    await eventually(() => posts().length > 0, "the diagnosis in the channel");
    await quiescent(harness);
    const loads = lake.requests
      .slice(before)
      .filter((r) => r.service === "catalog" && r.method === "GET" && /\/tables\/events$/.test(r.path));
    // Requests handled after the first read finished reuse its answer too (within 30 s).
    expect(loads.length).toBeLessThanOrEqual(2);
    expect(posts()).toHaveLength(1);
    // Beyond the person's rate (6 a minute) the flood is told once when to retry, not 88 times.
    const limited = harness.standIn
      .messages(CHANNEL)
      .filter((m) => m.ephemeralUser === "U0FLOOD" && /try again/.test(m.text));
    expect(limited).toHaveLength(1);
  });
});
