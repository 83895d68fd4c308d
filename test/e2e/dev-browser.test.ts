// `iceberg-bot dev` in a real headless Chromium: open the page, fire an alert, see the thread, try
// Apply as someone who may not approve, then as the approver fill in the modal and watch the card
// resolve. Screenshots of the page are kept in test-artifacts/ for people to look at.

import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, startDev } from "../../src/cli/dev.js";
import { loadScenario } from "../../src/sim/scenarios.js";
import { REPO_ROOT } from "../support/openapi.js";
import { HANG_MS } from "../support/poll.js";
import { REDIS_URL } from "../support/redis.js";

const ARTIFACTS = path.join(REPO_ROOT, "test-artifacts");

/** Debian's chromium package (installed by .ci/run); no browser is downloaded. */
function chromiumPath(): string {
  return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], {
    encoding: "utf8",
  }).trim();
}

function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}

let dev: DevServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
/** Every POST the page made and its answer, printed when the test fails. */
const posts: string[] = [];

beforeAll(async () => {
  dev = await startDev({ env: { REDIS_URL }, say: () => {}, port: 0, followUpIntervalMs: 300 });
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in a container has no user namespace for Chromium's sandbox.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
  // Waits end on what the page shows; the only bound is the suite's hang catcher.
  page.setDefaultTimeout(HANG_MS);
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("response", async (response) => {
    if (response.request().method() !== "POST") return;
    const body = await response.text().catch(() => "");
    posts.push(`${response.request().postData()?.slice(0, 120)} -> ${body.slice(0, 160)}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await dev?.close();
});

async function walkThrough(): Promise<void> {
  await page.goto(dev.link);
  await page.selectOption("#scenario", "competing-appends");
  await page.click("#fire");

  // The thread: status card, diagnosis, proposal with its buttons.
  const thread = page.locator("section.incident", { hasText: "db.events: commit conflict" });
  // The proposal's Apply (the card offers the same decision; either opens the same form).
  const apply = thread.locator('.msg.reply button[data-action-id="playbook_apply"]');
  await apply.waitFor();
  expect(await thread.locator(".block.header").first().textContent()).toContain("db.events");

  // What Slack shows: the shared picture inline with its alt text, date tokens as local times,
  // and a command box that suggests a table that exists (the scenario's).
  const picture = thread.locator("img[data-file-id]").first();
  await picture.waitFor();
  // Drawn, not only placed: the PNG arrived and decoded.
  await page.waitForFunction(
    'Array.from(document.querySelectorAll("section.incident img[data-file-id]")).some((i) => i.complete && i.naturalWidth > 0)',
  );
  expect(await picture.getAttribute("alt")).toMatch(
    /^Commits to db\.events from \d\d:\d\d to \d\d:\d\d UTC\./,
  );
  const times = thread.locator("time.date");
  expect(await times.count()).toBeGreaterThan(0);
  expect(await times.first().getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(await times.first().textContent()).toMatch(/\d\d:\d\d/);
  expect(await page.locator("#channel").textContent()).not.toMatch(/<!date|!date\^/);
  expect(await page.locator("#command").getAttribute("placeholder")).toContain(
    `/iceberg diagnose ${loadScenario("competing-appends").table}`,
  );

  // Someone who may not approve: the form that opens says why not, with nothing to submit.
  await page.selectOption("#user", "U0DEVGUEST");
  await apply.click();
  const refusal = page.locator("#modal", { hasText: "not an approver" });
  await refusal.waitFor();
  expect(await page.locator("#modal-submit").count()).toBe(0);
  await page.click("#modal-close");
  await page.locator("#overlay").waitFor({ state: "hidden" });
  await page.selectOption("#user", "U0DEVONCALL");

  // A slash command's ack shows as an ephemeral message too.
  await page.fill("#command", "/iceberg help");
  await page.press("#command", "Enter");
  await page.locator(".msg.ephemeral").first().waitFor();

  // The approver: Apply opens the modal (a placeholder the bot fills in); the reason is typed and submitted.
  await apply.click();
  await page.locator("#modal h2").waitFor();
  await page
    .locator("#modal textarea, #modal input[type=text]")
    .first()
    .fill("Spark backfill keeps winning; more retries");
  await page.screenshot({ path: artifact("dev-modal.png") });
  await page.click("#modal-submit");
  await page.locator("#overlay").waitFor({ state: "hidden" });
  await thread.getByText(/Applied by @on-call engineer/).waitFor();
  expect(await thread.locator(".edited").count()).toBeGreaterThan(0);

  // Six simulated minutes later the writer has committed and the card resolves.
  await page.click("#advance");
  await thread.locator(".msg.root .block.header", { hasText: "commits resumed" }).waitFor();
  await thread.getByText(/Recovered: commits on/).waitFor();
  await page.screenshot({ path: artifact("dev-page.png"), fullPage: true });
  expect(pageErrors).toEqual([]);
}

describe("iceberg-bot dev in a browser", () => {
  it("fires an alert, refuses an outsider, and resolves after the approver applies", async () => {
    try {
      await walkThrough();
    } catch (error) {
      await page.screenshot({ path: artifact("dev-failure.png"), fullPage: true }).catch(() => {});
      throw new Error(`${(error as Error).message}\nrequests:\n${posts.join("\n")}`);
    }
  });
});
