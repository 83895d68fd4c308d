import { describe, expect, it } from "vitest";
import { commandWindow, decideCommandRate, retryIn } from "../../src/core/command-rate.js";
import { deferredNote } from "../../src/core/incident/open-cap.js";

const limits = { perPerson: 6, perTable: 3, windowSeconds: 60 };

describe("slash-command rate decisions", () => {
  it("allows up to each limit and names the one exceeded, person first", () => {
    const window = commandWindow(125_000, 60);
    expect(window).toEqual({ index: 2, endsAt: 180_000 });
    expect(decideCommandRate({ person: 6, table: 3 }, limits, window)).toEqual({ allowed: true });
    expect(decideCommandRate({ person: 7, table: 4 }, limits, window)).toMatchObject({
      allowed: false,
      limited: "person",
      limit: 6,
      retryAt: 180_000,
      reply: true,
    });
    // Told once per window: the next ones over the person's limit are dropped quietly.
    expect(decideCommandRate({ person: 8 }, limits, window)).toMatchObject({ allowed: false, reply: false });
    expect(decideCommandRate({ person: 2, table: 4 }, limits, window)).toMatchObject({
      allowed: false,
      limited: "table",
      limit: 3,
    });
    expect(decideCommandRate({ person: 2 }, limits, window)).toEqual({ allowed: true });
  });

  it("says when to retry, never in 0 s", () => {
    expect(retryIn(125_000, 180_000)).toBe("in 55 s");
    expect(retryIn(180_000, 180_000)).toBe("in 1 s");
    expect(retryIn(0, 600_000)).toBe("in 10 min");
  });
});

describe("the cap on new incidents", () => {
  it("says how many wait in one note", () => {
    expect(deferredNote(37, { perRequest: 20, perMinute: 60 })).toBe(
      "37 more tables alerted; they will be opened as the cap allows (at most 20 incidents per notification and 60 a minute). Tables over the cap later this minute wait the same way, without another note.",
    );
    expect(deferredNote(1, { perRequest: 20, perMinute: 60 })).toMatch(/^1 more table alerted/);
  });
});
