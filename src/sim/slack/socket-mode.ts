// Slack's side of Socket Mode for the stand-in: apps.connections.open hands out a one-use
// WebSocket URL, the connection is greeted with `hello`, and envelopes sent to the app resolve with
// the app's ack payload, matched on envelope_id the way Slack matches them.

import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { CodedError, ErrorCode } from "../../errors.js";
import type { SocketModeStandIn } from "./types.js";
import { acceptWebSocket, rejectUpgrade, type WebSocketConnection } from "./websocket.js";

const SOCKET_MODE_PATH = "/socket-mode";
const DEFAULT_ACK_TIMEOUT_MS = 5000;

interface PendingAck {
  resolve(payload: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export interface SocketModeHub extends SocketModeStandIn {
  /** Issues the URL apps.connections.open answers with. */
  openUrl(): string;
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  closeAll(): void;
}

export function createSocketModeHub(baseUrl: string): SocketModeHub {
  const wsBase = baseUrl.replace(/^http/, "ws").replace(/\/$/, "");
  const tickets = new Set<string>();
  const connections = new Set<WebSocketConnection>();
  const pending = new Map<string, PendingAck>();
  const waiters = new Set<() => void>();

  const wake = (): void => {
    for (const waiter of [...waiters]) waiter();
  };

  const current = (): WebSocketConnection | undefined => {
    let latest: WebSocketConnection | undefined;
    for (const c of connections) if (c.open) latest = c;
    return latest;
  };

  function onText(text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return; // Slack ignores what it cannot parse; so does the stand-in.
    }
    if (typeof message.envelope_id !== "string") return;
    const waiting = pending.get(message.envelope_id);
    if (waiting === undefined) return;
    pending.delete(message.envelope_id);
    clearTimeout(waiting.timer);
    const payload = message.payload;
    waiting.resolve(
      typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>) : {},
    );
  }

  return {
    openUrl() {
      const ticket = randomUUID();
      tickets.add(ticket);
      return `${wsBase}${SOCKET_MODE_PATH}?ticket=${ticket}&app_id=A0STANDIN`;
    },

    handleUpgrade(request, socket, head) {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const ticket = url.searchParams.get("ticket") ?? "";
      // Like Slack, a URL works once: a reconnect must call apps.connections.open again.
      if (url.pathname !== SOCKET_MODE_PATH || !tickets.delete(ticket)) {
        rejectUpgrade(socket, 401, "Unauthorized");
        return;
      }
      const connection = acceptWebSocket(request, socket, head, {
        onText,
        onClose: () => {
          connections.delete(connection as WebSocketConnection);
          wake();
        },
      });
      if (connection === undefined) return;
      connections.add(connection);
      connection.sendText(
        JSON.stringify({
          type: "hello",
          num_connections: connections.size,
          debug_info: { host: "stand-in", approximate_connection_time: 18060 },
          connection_info: { app_id: "A0STANDIN" },
        }),
      );
      wake();
    },

    connected: () => current() !== undefined,

    waitForConnection(timeoutMs = 5000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (current() === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new CodedError(ErrorCode.SlackApi, `No Socket Mode client connected within ${timeoutMs} ms`, {
              hint: "Check that the app was started with an xapp- token and SLACK_API_URL pointing here.",
            }),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },

    send(type, payload, options = {}) {
      const connection = current();
      if (connection === undefined) {
        return Promise.reject(
          new CodedError(
            ErrorCode.SlackApi,
            `Cannot send a ${type} envelope: no Socket Mode client is connected`,
            {
              hint: "Await socketMode.waitForConnection() first.",
            },
          ),
        );
      }
      const envelopeId = randomUUID();
      const timeoutMs = options.timeoutMs ?? DEFAULT_ACK_TIMEOUT_MS;
      return new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(envelopeId);
          reject(
            new CodedError(
              ErrorCode.SlackApi,
              `The app did not ack the ${type} envelope within ${timeoutMs} ms`,
              {
                hint: "Slack would show the user an error; check the listener acks before doing slow work.",
              },
            ),
          );
        }, timeoutMs);
        pending.set(envelopeId, { resolve, reject, timer });
        connection.sendText(
          JSON.stringify({
            envelope_id: envelopeId,
            type,
            payload,
            accepts_response_payload: type !== "events_api",
            retry_attempt: 0,
            retry_reason: "",
          }),
        );
      });
    },

    disconnect(reason = "warning") {
      // Slack asks the app to reconnect with a `disconnect` message before it drops a connection.
      for (const c of connections) c.sendText(JSON.stringify({ type: "disconnect", reason }));
    },

    closeAll() {
      for (const [id, waiting] of pending) {
        clearTimeout(waiting.timer);
        waiting.reject(new CodedError(ErrorCode.SlackApi, "The Slack stand-in closed before the app acked"));
        pending.delete(id);
      }
      for (const c of connections) c.terminate();
      connections.clear();
      tickets.clear();
    },
  };
}
