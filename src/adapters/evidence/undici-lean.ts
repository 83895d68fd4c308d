// undici's Agent and request() without undici's index, which also loads its fetch, WebSocket,
// cache, mock and proxy layers (about 110 modules, a fifth of a cold `diagnose`) that the bot
// never uses. The files are undici's own (the version is pinned), so an Agent from here is the
// same class as `import { Agent } from "undici"`.

import { createRequire } from "node:module";
import type { Dispatcher, Agent as UndiciAgent } from "undici";

const require = createRequire(import.meta.url);

export const Agent = require("undici/lib/dispatcher/agent.js") as typeof UndiciAgent;
export type Agent = UndiciAgent;

const dispatchRequest = require("undici/lib/api/api-request.js") as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/** undici's request(url, options) for a URL object and a given dispatcher, as its index builds it. */
export function request(
  url: URL,
  options: Omit<Dispatcher.RequestOptions, "origin" | "path" | "method"> & {
    dispatcher: Dispatcher;
    method: Dispatcher.HttpMethod;
  },
): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  return dispatchRequest.call(dispatcher, {
    ...rest,
    origin: url.origin,
    path: url.search ? `${url.pathname}${url.search}` : url.pathname,
  });
}
