// The webhook and health routes on their own HTTP server, for Socket Mode where Bolt has no HTTP
// receiver. Bolt's own Socket Mode server does not say which port it bound (PORT=0) nor report a
// failed listen, so we run this one ourselves.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Route {
  path: string;
  method: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface RouteServer {
  port: number;
  close(): Promise<void>;
}

export async function serveRoutes(routes: readonly Route[], port: number): Promise<RouteServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const route = routes.find((r) => r.path === path && r.method === req.method);
    if (route !== undefined) {
      route.handler(req, res);
      return;
    }
    req.resume();
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("Not found");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive clients (probes, tests) would otherwise hold the close open.
        server.closeAllConnections();
      }),
  };
}
