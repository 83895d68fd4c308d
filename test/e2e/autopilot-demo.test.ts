// `iceberg-bot demo --autopilot`: autopilot fixes the incident, reverts when the writer does not
// recover, a person's Hold hands the step back, and it refuses by its hours and by the fleet's
// budget, each from a firing alert to the printed thread.

import { describe, expect, it } from "vitest";
import { type DemoAutopilot, runDemo } from "../../src/cli/demo.js";
import { REDIS_URL } from "../support/redis.js";

async function demo(
  scenario: string,
  autopilot: DemoAutopilot,
): Promise<{ code: number; out: string; commits: number }> {
  let out = "";
  let commits = 0;
  const code = await runDemo({
    scenario,
    autopilot,
    stdout: { write: (chunk: string) => (out += chunk) },
    env: { REDIS_URL },
    followUpIntervalMs: 150,
    onEnd: (end) => {
      commits = end.lakehouse.requests.filter(
        (r) => r.service === "catalog" && r.method === "POST" && /\/tables\/events$/.test(r.path),
      ).length;
    },
  });
  return { code, out, commits };
}

describe("the demo with autopilot", () => {
  it("applies the retry step itself and the writer recovers", async () => {
    const { code, out, commits } = await demo("competing-appends", "on");
    expect(code).toBe(0);
    expect(out).toMatch(
      /autopilot announces in the thread: Autopilot will apply raise commit retries under policy demo-low-risk/,
    );
    expect(out).toMatch(/the writer commits again: the bot resolves the incident/);
    expect(out).not.toMatch(/presses Apply/);
    expect(commits).toBe(1);
  });

  it("reverts its change when the writer does not recover and hands the next step to a person", async () => {
    const { code, out, commits } = await demo("autopilot-retries-do-not-help", "on");
    expect(code).toBe(0);
    expect(out).toMatch(/autopilot reverts its change/);
    expect(out).toMatch(/Autopilot reverted raise commit retries: the writer did not recover/);
    expect(commits).toBe(2);
  });

  it("a person presses Hold and approves the step by hand", async () => {
    const { code, out, commits } = await demo("competing-appends", "hold");
    expect(code).toBe(0);
    expect(out).toMatch(/presses Hold: the step goes back to people[\s\S]*presses Apply/);
    expect(out).toMatch(/Held: autopilot will not apply raise commit retries/);
    expect(commits).toBe(1);
  });

  it("outside the policy's hours it leaves the step to people and the thread says why", async () => {
    const { code, out, commits } = await demo("competing-appends", "off-hours");
    expect(code).toBe(0);
    expect(out).toMatch(
      /autopilot leaves this step to people: policy demo-low-risk allows changes only between \d\d:00-\d\d:00 UTC/,
    );
    expect(out).toMatch(
      /Autopilot leaves raise commit retries to you: policy demo-low-risk allows changes only/,
    );
    expect(out).not.toMatch(/autopilot announces/);
    expect(out).toMatch(/presses Apply/);
    expect(commits).toBe(1);
  });

  it("with the fleet's hourly budget spent it leaves the step to people and the thread says why", async () => {
    const { code, out, commits } = await demo("competing-appends", "budget-spent");
    expect(code).toBe(0);
    expect(out).toMatch(/autopilot already made the fleet's one change this hour, on another table/);
    expect(out).toMatch(
      /Autopilot leaves raise commit retries to you: the fleet's one autonomous change this hour is made/,
    );
    expect(out).not.toMatch(/autopilot announces/);
    expect(out).toMatch(/presses Apply/);
    expect(commits).toBe(1);
  });

  it("leaves the step to people when the failing writer's source did not answer, and says why", async () => {
    const { code, out } = await demo("autopilot-flink-unanswered", "on");
    expect(code).toBe(0);
    expect(out).toMatch(
      /autopilot leaves this step to people: the bot could not read the Flink REST API, which this step depends on/,
    );
    expect(out).not.toMatch(/autopilot announces/);
    expect(out).toMatch(/presses Apply/);
  });
});
