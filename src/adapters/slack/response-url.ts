// A reply through an interaction's response_url, sent as Bolt's respond() sends it (a JSON POST),
// for the slash commands handled before Bolt's listener pipeline (see app.ts). Needs no Redis
// and no token; `fetchFn` is the receiver's scrubbing fetch.

import type { RespondArguments, RespondFn, webApi } from "@slack/bolt";

export function respondVia(fetchFn: webApi.FetchFunction, responseUrl: string): RespondFn {
  return async (message: string | RespondArguments) => {
    const body = typeof message === "string" ? { text: message } : message;
    const response = await fetchFn(responseUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    // fetch resolves whatever the status: an expired response_url must reach the caller's handling.
    if (!response.ok) throw new Error(`the response_url answered ${response.status}`);
    return response;
  };
}
