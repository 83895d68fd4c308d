// What the receiver sends to Slack leaves without secrets or internal addresses, like what the
// workers send: an ack's body (straight back over HTTP), and whatever goes out with the app's
// fetch (the listeners' Web API client and respond()'s response_url replies).

import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { scrubbingFetch } from "../../../src/adapters/slack/web-client.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";
import { postSigned, slashCommandBody } from "../../support/slack-signing.js";
import { type Harness, startHarness, WEBHOOK_TOKEN } from "../bot/harness.js";

const SECRET = "catalog-token-9f8e7d6c";
const CATALOG = "http://catalog.internal:8181";
const scrub = { secrets: [SECRET], addresses: [{ url: CATALOG, name: "the catalog" }] };

let h: Harness | undefined;
let standIn: SlackStandIn | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await standIn?.close();
  standIn = undefined;
});

describe("the receiver's own sends are scrubbed", () => {
  it("scrubs an ack's body: a command echoing a secret is answered without it", async () => {
    h = await startHarness("receiver-scrub-ack");
    // The alert webhook's token is one of the bot's secrets; a table name can carry it.
    const answer = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: `diagnose db.${WEBHOOK_TOKEN}` }),
      "application/x-www-form-urlencoded",
    );
    expect(answer.status).toBe(200);
    expect(answer.body).not.toContain(WEBHOOK_TOKEN);
    expect(answer.body).toContain("[redacted]");
    expect(JSON.parse(answer.body)).toMatchObject({ response_type: "ephemeral" });
  });

  it("scrubs the Web API calls and response_url replies sent with the app's fetch, token kept", async () => {
    standIn = await startSlackStandIn();
    const fetch = scrubbingFetch(scrub);
    const client = new webApi.WebClient("xoxb-stand-in", {
      slackApiUrl: standIn.apiUrl,
      fetch,
      retryConfig: { retries: 0 },
    });
    const leak = `the catalog at ${CATALOG}/v1/config answered 401 for token ${SECRET}`;
    await client.chat.postEphemeral({
      channel: "C0SCRUB",
      user: "U0ALICE",
      text: leak,
      blocks: [{ type: "section", text: { type: "mrkdwn", text: leak } }],
    });
    const [stored] = standIn.messages("C0SCRUB");
    expect(stored?.text).toBe("the catalog at the catalog answered 401 for token [redacted]");
    expect(JSON.stringify(stored?.blocks)).not.toContain(SECRET);
    expect(JSON.stringify(stored?.blocks)).not.toContain("catalog.internal");

    // A response_url reply, as Bolt's respond() sends it (JSON over the same fetch).
    const reply = await fetch(standIn.responseUrl("r-scrub"), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ response_type: "ephemeral", text: leak }),
    });
    expect(reply.ok).toBe(true);
    const recorded = standIn.responses.find((r) => r.id === "r-scrub");
    expect(recorded?.body.text).toBe("the catalog at the catalog answered 401 for token [redacted]");
  });
});
