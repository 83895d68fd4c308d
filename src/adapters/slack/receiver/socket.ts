// Slack over Socket Mode through Bolt's public Receiver interface: @slack/socket-mode's client
// (its documented `slack_event` event) delivers each request already authenticated by the app
// token; it is handed on as a ReceiverEvent whose ack answers over the socket. The bot's other
// routes are served by its one server all the same (adapters/http/edge.ts).

import type { App, Logger, Receiver, ReceiverEvent } from "@slack/bolt";
import { SocketModeClient } from "@slack/socket-mode";
import type { EventHandler } from "./http.js";

export interface SocketReceiverOptions {
  appToken: string;
  /** Without it apps.connections.open would go to slack.com whatever SLACK_API_URL says. */
  apiUrl?: string;
  handle: EventHandler;
  logger: Logger;
  log: { error(obj: object, msg?: string): void };
}

interface SlackEventArgs {
  body: Record<string, unknown>;
  ack: (response?: Record<string, unknown>) => Promise<void>;
  retry_num?: number;
  retry_reason?: string;
}

export class SlackSocketReceiver implements Receiver {
  readonly client: SocketModeClient;
  private app: App | undefined;

  constructor(private readonly options: SocketReceiverOptions) {
    this.client = new SocketModeClient({
      appToken: options.appToken,
      logger: options.logger,
      // Only the URL: the client's own long retry schedule suits a connection that must come back.
      clientOptions: options.apiUrl ? { slackApiUrl: options.apiUrl } : {},
    });
    this.client.on("slack_event", (args: SlackEventArgs) => this.onEvent(args));
  }

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {
    await this.client.start();
  }

  async stop(): Promise<void> {
    // The close handshake is awaited by disconnect().
    await this.client.disconnect().catch(() => {});
  }

  private async onEvent(args: SlackEventArgs): Promise<void> {
    const app = this.app;
    if (!app) return;
    let acked = false;
    const event: ReceiverEvent = {
      body: args.body,
      async ack(response?: unknown) {
        if (acked) return;
        acked = true;
        // As Bolt's Socket Mode receiver: the ack's body goes back over the socket as it is.
        await args.ack(response as Record<string, unknown> | undefined);
      },
      ...(args.retry_num !== undefined ? { retryNum: args.retry_num } : {}),
      ...(args.retry_reason !== undefined ? { retryReason: args.retry_reason } : {}),
    };
    try {
      await this.options.handle(event, (e) => app.processEvent(e));
    } catch (error) {
      this.options.log.error({ err: String(error) }, "slack event failed");
    }
    if (!acked) await event.ack();
  }
}
