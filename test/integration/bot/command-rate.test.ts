// Slash-command rate limits: a person over their rate and a table over its rate get one polite
// ephemeral reply each (what was limited, when to retry) and no work; the counters live in Redis,
// so two bot processes share them. The clock is injected: the window moves when the test says.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postSigned, slashCommandBody } from "../../support/slack-signing.js";
import { CHANNEL, eventually, fixedDiagnosis, type Harness, quiescent, startHarness } from "./harness.js";

const FORM = "application/x-www-form-urlencoded";

describe("slash-command rate limits", () => {
  let h: Harness;
  const diagnosis = fixedDiagnosis();
  // Two seconds into a minute window, so "in 58 s" is exact.
  let clock = Math.floor(Date.now() / 60_000) * 60_000 + 2000;
  beforeAll(async () => {
    h = await startHarness("command-rate", {
      bots: 2,
      standIn: { usergroups: { S0ONCALL: ["U0GROUPIE"] } },
      botConfig: `
tables:
  db.events:
    flinkJobName: events-ingest
    approvers: [U0APPROVER, S0ONCALL]
rateLimits:
  commandsPerPerson: 3
  diagnosesPerTable: 2
`,
      botOptions: { diagnose: diagnosis.diagnose, wallClock: () => clock },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  const command = (text: string, userId: string, bot: number) =>
    postSigned(
      h.url("/slack/events", bot),
      h.secret,
      slashCommandBody({ text, userId, channelId: CHANNEL }),
      FORM,
      {},
      Math.floor(clock / 1000),
    );
  const limitedFor = (user: string) =>
    h.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === user && /try again/.test(m.text));

  const answered = (user: string) =>
    h.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === user && !/try again/.test(m.text));

  it("limits one person across processes, says once when to retry, and lets them in the next window", async () => {
    for (let i = 0; i < 6; i++)
      expect((await command("history db.events", "U0PERSON", i % 2)).status).toBe(200);
    await eventually(() => limitedFor("U0PERSON").length === 1, "the rate-limited reply");
    await eventually(() => answered("U0PERSON").length === 3, "three answers");
    await quiescent(h);
    // Three over the limit, one reply: a flood is told once per window, not once per request.
    const replies = limitedFor("U0PERSON");
    expect(replies).toHaveLength(1);
    expect(answered("U0PERSON")).toHaveLength(3);
    expect(replies[0]!.text).toMatch(/You have reached 3 `\/iceberg` requests in a minute/);
    expect(replies[0]!.text).toMatch(/try again in 58 s/);
    expect(replies[0]!.text).toContain(
      `<!date^${Math.floor((clock - 2000 + 60_000) / 1000)}^{time_secs}|in 58 s>`,
    );

    clock += 60_000;
    expect((await command("history db.events", "U0PERSON", 0)).status).toBe(200);
    await eventually(() => answered("U0PERSON").length === 4, "the answer in the next window");
    expect(limitedFor("U0PERSON")).toHaveLength(1);
  });

  it("limits diagnoses of one table whoever asks", async () => {
    clock += 60_000;
    const before = diagnosis.calls.length;
    for (const user of ["U0ANN", "U0BOB", "U0CAT"]) {
      expect((await command("diagnose DB.EVENTS", user, 0)).status).toBe(200);
      await quiescent(h);
    }
    const replies = limitedFor("U0CAT");
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toMatch(/`DB\.EVENTS` has had 2 diagnoses asked for in a minute/);
    expect(limitedFor("U0ANN")).toHaveLength(0);
    expect(limitedFor("U0BOB")).toHaveLength(0);
    // Ann's and Bob's requests ran (merged into one read or two); Cat's did not add one.
    expect(diagnosis.calls.length - before).toBeGreaterThanOrEqual(1);
    expect(diagnosis.calls.length - before).toBeLessThanOrEqual(2);
  });

  it("never refuses the table's approvers (a user group's members too) when others filled its limit", async () => {
    clock += 60_000;
    // Two people fill the table's limit, as two people sending commands in an incident do.
    for (const user of ["U0ANN", "U0BOB"]) {
      expect((await command("diagnose db.events", user, 0)).status).toBe(200);
      await quiescent(h);
    }
    const filled = limitedFor("U0DAN").length;
    expect((await command("diagnose db.events", "U0DAN", 1)).status).toBe(200);
    await eventually(() => limitedFor("U0DAN").length === filled + 1, "a third person refused");
    for (const user of ["U0APPROVER", "U0GROUPIE"]) {
      expect((await command("diagnose db.events", user, 1)).status).toBe(200);
      await quiescent(h);
    }
    expect(limitedFor("U0APPROVER")).toHaveLength(0);
    expect(limitedFor("U0GROUPIE")).toHaveLength(0);
    // Their own limit still holds: past it, an approver is told about their own rate.
    for (let i = 0; i < 3; i++)
      expect((await command("diagnose db.events", "U0APPROVER", i % 2)).status).toBe(200);
    await eventually(() => limitedFor("U0APPROVER").length === 1, "the approver's own limit");
    expect(limitedFor("U0APPROVER")[0]!.text).toMatch(/You have reached 3 `\/iceberg` requests/);
  });
});
