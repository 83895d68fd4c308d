// The intake floor: a plain node HTTP server in its own process that reads the body, parses the
// JSON and answers 202. Prints its port. Plain JavaScript, run by node itself like the built bot.
import { createServer } from "node:http";

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const text = JSON.stringify({ ok: true, accepted: body.alerts?.length ?? 0, ignored: 0 });
    res.writeHead(202, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
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
