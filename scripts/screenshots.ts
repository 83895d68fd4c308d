// Takes the screenshots in docs/screenshots/: the local Slack page (`iceberg-bot dev`) in Debian's
// Chromium, driven as a person would, for three incidents: the catalog down, the duplicate commit
// and a repeat incident. Each runs on a fresh page and bot, so each thread is the only one shown.
//   node --import tsx scripts/screenshots.ts [out-dir]     (needs Redis and /usr/bin/chromium)

import { execFileSync } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { startDev } from "../src/cli/dev.js";

const OUT = path.resolve(process.argv[2] ?? "docs/screenshots");
/** Waits end on what the page shows; this only stops a hung run. */
const HANG_MS = 180_000;

function chromiumPath(): string {
  return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], {
    encoding: "utf8",
  }).trim();
}

/** One incident from a fresh page: `play` drives it, the thread is then saved as `name`.png. */
async function shoot(
  browser: Browser,
  name: string,
  scenario: string,
  play: (page: Page, thread: () => Locator) => Promise<void>,
): Promise<void> {
  const dev = await startDev({
    env: { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" },
    say: () => {},
    port: 0,
    scenario,
    followUpIntervalMs: 300,
  });
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  page.setDefaultTimeout(HANG_MS);
  try {
    await page.goto(dev.link);
    await page.selectOption("#user", "U0DEVONCALL");
    await page.selectOption("#scenario", scenario);
    await page.click("#fire");
    const thread = () => page.locator("section.incident").last();
    await play(page, thread);
    // The page polls every second: let the last edit land before the picture.
    await page.waitForTimeout(1500);
    // The page's fixed header and command box would sit over the thread in a stitched picture.
    await page.addStyleTag({ content: "header, #composer { display: none !important; }" });
    const file = path.join(OUT, `${name}.png`);
    await thread().screenshot({ path: file });
    console.log(`${file}: ${Math.round(statSync(file).size / 1024)} KB`);
  } finally {
    await page.close();
    await dev.close();
  }
}

const button = (thread: Locator, actionId: string) =>
  thread.locator(`.msg.reply button[data-action-id="${actionId}"]`).last();

/** The approver applies the proposal: Apply, a reason in the form, submit. */
async function apply(page: Page, thread: Locator): Promise<void> {
  await button(thread, "playbook_apply").click();
  await page.locator("#modal h2").waitFor();
  await page.locator("#modal textarea, #modal input[type=text]").first().fill("retries are at the default");
  await page.click("#modal-submit");
  await page.locator("#overlay").waitFor({ state: "hidden" });
  await thread
    .getByText(/Applied by/)
    .first()
    .waitFor();
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
  try {
    // The catalog answers 503: the read-only check cannot look, and nothing is offered that changes anything.
    await shoot(browser, "catalog-down", "catalog-down-flink-failing", async (_page, thread) => {
      await thread()
        .getByText(/The thread is yours from here/)
        .waitFor();
    });

    // The unknown commit landed twice while the writer kept committing: remove the duplicate, by hand.
    await shoot(browser, "duplicate-commit", "commit-state-unknown-duplicate", async (page, thread) => {
      await button(thread(), "playbook_done").click();
      await thread()
        .getByText(/Done by hand by/)
        .first()
        .waitFor();
      await page.click("#advance");
      await thread().locator(".msg.reply", { hasText: "Commits were flowing" }).first().waitFor();
    });

    // The same table fails the same way a day after the first incident was fixed.
    await shoot(browser, "repeat-incident", "competing-appends", async (page, thread) => {
      await button(thread(), "playbook_apply").waitFor();
      await apply(page, thread());
      await page.click("#advance");
      await thread().locator(".msg.root .block.header", { hasText: "commits resumed" }).waitFor();
      await page.click("#again");
      await page.locator("#status", { hasText: "a day later" }).waitFor();
      await page.click("#fire");
      await page.locator("section.incident").nth(1).waitFor();
      await thread()
        .getByText(/Seen on/)
        .first()
        .waitFor();
      await button(thread(), "playbook_apply").waitFor();
    });
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
