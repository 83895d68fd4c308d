// A local Slack Web API for tests and the demo. WebClient talks to it through slackApiUrl; it
// checks the token and every argument the way Slack does, keeps the messages and views it accepted,
// and can be told to rate-limit or fail a method so retry behaviour is exercised for real, including
// failures whose outcome the caller cannot know (stored but answered late, stored then reset).

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CodedError, ErrorCode } from "../../errors.js";
import { ApiError } from "./api-error.js";
import { checkBlocks } from "./block-rules.js";
import { canvasMethods } from "./canvases.js";
import { FileStore, fileMethods, receiveUpload } from "./files.js";
import { MessageStore } from "./message-store.js";
import { METHODS, type MethodContext } from "./methods.js";
import { BodyError, decodeArgs, readBody } from "./request.js";
import { createSocketModeHub } from "./socket-mode.js";
import type {
  RecordedCall,
  RecordedResponse,
  SlackStandIn,
  SlackStandInOptions,
  StandInFault,
  StoredCanvas,
  StoredMessage,
} from "./types.js";

export type {
  SlackStandIn,
  SlackStandInOptions,
} from "./types.js";

export const DEFAULT_STAND_IN_TOKEN = "xoxb-stand-in";

interface Reply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

interface ActiveFault extends StandInFault {
  remaining: number;
  /** now() after which the fault no longer applies (forMs faults). */
  untilMs?: number;
}

/** What happens to the HTTP answer of one Web API call. */
interface Outcome {
  reply: Reply;
  /** Answer after this many milliseconds instead of at once. */
  delayMs?: number;
  /** Answer once this settles instead of at once (a gate the test opens). */
  releasedBy?: Promise<unknown>;
  /** Close the connection instead of answering. */
  reset?: boolean;
}

const DEFAULT_LATE_MS = 15_000;

export async function startSlackStandIn(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  const token = options.token ?? DEFAULT_STAND_IN_TOKEN;
  const now = options.now ?? Date.now;
  const store = new MessageStore(options.firstTsSeconds ?? 1_732_870_000);
  const files = new FileStore();
  const canvases: StoredCanvas[] = [];
  let canvasesAllowed = options.canvases !== false;
  const uploadMethods = { ...fileMethods(files), ...canvasMethods(files, canvases, () => canvasesAllowed) };
  const calls: RecordedCall[] = [];
  const responses: RecordedResponse[] = [];
  const views = { published: {} as Record<string, unknown>, opened: [] as unknown[] };
  const faults: ActiveFault[] = [];
  const listeners = new Set<() => void>();
  let viewCounter = 0;
  let responseCounter = 0;

  const notify = (): void => {
    for (const listener of [...listeners]) listener();
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // A handler bug must still answer, or WebClient would wait for its own timeout.
      send(response, { status: 500, body: { ok: false, error: "internal_error", detail: String(error) } });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${options.advertisedHost ?? "127.0.0.1"}:${port}/`;
  const socketMode = createSocketModeHub(baseUrl);
  server.on("upgrade", (request, socket, head) => socketMode.handleUpgrade(request, socket, head));

  const ctx: MethodContext = {
    store,
    botUserId: options.botUserId ?? "U0STANDBOT",
    botId: options.botId ?? "B0STANDBOT",
    teamId: options.teamId ?? "T0STANDIN",
    baseUrl,
    usergroups: options.usergroups ?? {},
    channels: options.channels === undefined ? undefined : new Set(options.channels),
    views,
    nextViewId: () => `V${String(++viewCounter).padStart(8, "0")}`,
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", baseUrl);
    const apiMatch = /^\/api\/([A-Za-z0-9_.]+)$/.exec(url.pathname);
    const responseMatch = /^\/response\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    const uploadMatch = /^\/upload\/([A-Za-z0-9]+)$/.exec(url.pathname);
    if (request.method === "POST" && apiMatch?.[1] !== undefined) {
      deliver(request, response, await answerApi(apiMatch[1], request));
    } else if (request.method === "POST" && uploadMatch?.[1] !== undefined) {
      const answer = await receiveUpload(files, uploadMatch[1], request);
      response.writeHead(answer.status, { "content-type": "text/plain; charset=utf-8" });
      response.end(answer.text);
      notify();
    } else if (request.method === "POST" && responseMatch?.[1] !== undefined) {
      send(response, await answerResponseUrl(responseMatch[1], request));
    } else {
      send(response, { status: 404, body: { ok: false, error: "not_found" } });
    }
  }

  // Answers held back by "late" faults, each with its way to drop it; close() drops them all so no
  // timer or gate outlives the server.
  const held = new Set<() => void>();
  const settledWaiters: Array<() => void> = [];

  function releaseHeld(drop: () => void): void {
    held.delete(drop);
    if (held.size === 0) for (const resolve of settledWaiters.splice(0)) resolve();
  }

  function deliver(request: IncomingMessage, response: ServerResponse, outcome: Outcome): void {
    if (outcome.reset === true) {
      request.socket.destroy();
      return;
    }
    if (outcome.releasedBy !== undefined) {
      let dropped = false;
      const drop = (): void => {
        dropped = true;
      };
      held.add(drop);
      const answer = (): void => {
        if (!dropped && !response.destroyed) send(response, outcome.reply);
        releaseHeld(drop);
      };
      outcome.releasedBy.then(answer, answer);
      return;
    }
    if (outcome.delayMs === undefined) {
      send(response, outcome.reply);
      return;
    }
    const timer = setTimeout(() => {
      if (!response.destroyed) send(response, outcome.reply);
      releaseHeld(drop);
    }, outcome.delayMs);
    const drop = (): void => clearTimeout(timer);
    held.add(drop);
  }

  async function answerApi(method: string, request: IncomingMessage): Promise<Outcome> {
    let args: Record<string, unknown> = {};
    let outcome: Outcome;
    let fault: ActiveFault | undefined;
    let carriedOut = false;
    try {
      args = decodeArgs(request.headers["content-type"], await readBody(request));
      fault = takeFault(method, args);
      if (fault !== undefined && !carriesOut(fault)) {
        outcome = { reply: faultReply(fault) };
      } else {
        const reply = answerMethod(method, args, bearer(request.headers.authorization));
        // A refused call (bad token, bad arguments) changed nothing, whatever the fault says next.
        carriedOut = reply.body.ok === true;
        outcome = fault === undefined ? { reply } : afterCarriedOut(fault, reply);
      }
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      outcome = { reply: { status: 200, body: { ok: false, error: error.message } } };
    }
    const { reply } = outcome;
    const { token: _token, ...safeArgs } = args;
    calls.push({
      method,
      args: safeArgs,
      atMs: now(),
      ok: outcome.reset !== true && reply.body.ok === true,
      ...(typeof reply.body.error === "string" ? { error: reply.body.error } : {}),
      status: outcome.reset === true ? 0 : reply.status,
      response: outcome.reset === true ? undefined : reply.body,
      ...(fault === undefined ? {} : { fault: fault.kind }),
      carriedOut,
    });
    notify();
    return outcome;
  }

  function answerMethod(
    method: string,
    args: Record<string, unknown>,
    headerToken: string | undefined,
  ): Reply {
    const given = headerToken ?? (typeof args.token === "string" ? args.token : undefined);
    if (given === undefined || given === "") return { status: 200, body: { ok: false, error: "not_authed" } };
    if (method === "apps.connections.open") return openConnection(given);
    if (given !== token) return { status: 200, body: { ok: false, error: "invalid_auth" } };
    const handler = METHODS[method] ?? uploadMethods[method as keyof typeof uploadMethods];
    if (handler === undefined) return { status: 200, body: { ok: false, error: "unknown_method" } };
    try {
      return { status: 200, body: handler(args, ctx) };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const body: Record<string, unknown> = { ok: false, error: error.code };
      if (error.messages.length > 0) body.response_metadata = { messages: error.messages };
      return { status: 200, body };
    }
  }

  // Only an app-level token may open a Socket Mode connection; a bot token is the wrong kind.
  function openConnection(given: string): Reply {
    if (!given.startsWith("xapp-"))
      return { status: 200, body: { ok: false, error: "not_allowed_token_type" } };
    if (options.appToken !== undefined && given !== options.appToken) {
      return { status: 200, body: { ok: false, error: "invalid_auth" } };
    }
    return { status: 200, body: { ok: true, url: socketMode.openUrl() } };
  }

  function takeFault(method: string, args: Record<string, unknown>): ActiveFault | undefined {
    const at = now();
    // Expired outage windows are dropped first so they never shadow a later fault.
    for (let i = faults.length - 1; i >= 0; i--) {
      const untilMs = faults[i]?.untilMs;
      if (untilMs !== undefined && at >= untilMs) faults.splice(i, 1);
    }
    const index = faults.findIndex(
      (f) => (f.method === method || f.method === "*") && (f.match === undefined || f.match(args)),
    );
    const fault = faults[index];
    if (fault === undefined) return undefined;
    if (fault.untilMs === undefined) {
      fault.remaining -= 1;
      if (fault.remaining <= 0) faults.splice(index, 1);
    }
    return fault;
  }

  function carriesOut(fault: StandInFault): boolean {
    return (
      fault.kind === "late" || fault.kind === "reset" || (fault.kind === "status" && fault.delivered === true)
    );
  }

  function faultReply(fault: StandInFault): Reply {
    if (fault.kind === "refuse")
      return { status: 200, body: { ok: false, error: fault.error ?? "invalid_auth" } };
    if (fault.kind === "ratelimit") {
      const seconds = fault.retryAfterSeconds ?? 1;
      return {
        status: 429,
        body: { ok: false, error: "ratelimited" },
        headers: { "retry-after": String(seconds) },
      };
    }
    return { status: fault.status ?? 500, body: { ok: false, error: "internal_error" } };
  }

  function afterCarriedOut(fault: StandInFault, reply: Reply): Outcome {
    if (reply.body.ok !== true) return { reply };
    if (fault.kind === "late" && fault.releasedBy !== undefined)
      return { reply, releasedBy: fault.releasedBy };
    if (fault.kind === "late") return { reply, delayMs: fault.delayMs ?? DEFAULT_LATE_MS };
    if (fault.kind === "reset") return { reply, reset: true };
    return { reply: faultReply(fault) };
  }

  async function answerResponseUrl(id: string, request: IncomingMessage): Promise<Reply> {
    let body: Record<string, unknown>;
    try {
      body = decodeArgs(request.headers["content-type"] ?? "application/json", await readBody(request));
    } catch (error) {
      if (!(error instanceof BodyError)) throw error;
      return { status: 400, body: { ok: false, error: error.message } };
    }
    if (body.blocks !== undefined) {
      const errors = checkBlocks(body.blocks, "message");
      if (errors.length > 0) {
        return {
          status: 400,
          body: { ok: false, error: "invalid_blocks", response_metadata: { messages: errors } },
        };
      }
    }
    if (body.text === undefined && body.blocks === undefined && body.delete_original !== true) {
      return { status: 400, body: { ok: false, error: "no_text" } };
    }
    responses.push({ id, atMs: now(), body });
    notify();
    return { status: 200, body: { ok: true } };
  }

  return {
    apiUrl: `${baseUrl}api/`,
    calls,
    responses,
    views,
    messages: (channel?: string): StoredMessage[] => store.list(channel),
    thread: (channel: string, ts: string): StoredMessage[] => store.thread(channel, ts),
    responseUrl: (id?: string): string => `${baseUrl}response/${id ?? `r${++responseCounter}`}`,
    inject(fault: StandInFault): void {
      faults.push({
        ...fault,
        remaining: fault.times ?? 1,
        ...(fault.forMs === undefined ? {} : { untilMs: now() + fault.forMs }),
      });
    },
    clearFaults(): void {
      faults.length = 0;
    },
    settled(): Promise<void> {
      if (held.size === 0) return Promise.resolve();
      return new Promise((resolve) => settledWaiters.push(resolve));
    },
    waitFor<T>(probe: () => T | undefined | null | false, timeoutMs = 5000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const check = (): void => {
          let value: T | undefined | null | false;
          try {
            value = probe();
          } catch (error) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(error);
            return;
          }
          if (value === undefined || value === null || value === false) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(value);
        };
        listeners.add(check);
        timer = setTimeout(() => {
          listeners.delete(check);
          const seen = calls.map((c) => `${c.method}${c.ok ? "" : `(${c.error})`}`).join(", ") || "none";
          reject(
            new CodedError(
              ErrorCode.SlackApi,
              `The Slack stand-in did not see the expected calls in ${timeoutMs} ms`,
              {
                hint: `Calls so far: ${seen}`,
              },
            ),
          );
        }, timeoutMs);
        check();
      });
    },
    files: () => files.list(),
    canvases: () => [...canvases],
    allowCanvases: (allowed: boolean) => {
      canvasesAllowed = allowed;
    },
    socketMode: {
      connected: socketMode.connected,
      waitForConnection: socketMode.waitForConnection,
      send: socketMode.send,
      disconnect: socketMode.disconnect,
    },
    close(): Promise<void> {
      // Upgraded sockets are no longer the HTTP server's: close() would wait on them forever.
      socketMode.closeAll();
      for (const drop of [...held]) {
        drop();
        releaseHeld(drop);
      }
      return new Promise((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
    },
  };
}

function bearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1];
}

function send(response: ServerResponse, reply: Reply): void {
  if (response.headersSent) return;
  const payload = JSON.stringify(reply.body);
  response.writeHead(reply.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    ...reply.headers,
  });
  response.end(payload);
}
