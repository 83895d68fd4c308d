// The scrape floor: a plain node HTTP server with a prom-client registry holding one gauge, in its
// own process. Prints its port. Plain JavaScript, run by node itself like the built bot.
import { createServer } from "node:http";
import { Gauge, Registry } from "prom-client";

const registry = new Registry();
new Gauge({ name: "bare_up", help: "Always 1.", registers: [registry] }).set(1);

const server = createServer((_req, res) => {
  registry.metrics().then((text) => {
    res.writeHead(200, { "content-type": registry.contentType, "content-length": Buffer.byteLength(text) });
    res.end(text);
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`,
  );
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
