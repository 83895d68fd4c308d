// The ack floor: a Bolt app in its own process whose /iceberg listener only acks. Prints its port.
// Plain JavaScript, run by node itself like the built bot it is compared with.
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";

const secret = process.argv[2] ?? "";
const receiver = new HTTPReceiver({ signingSecret: secret, logLevel: LogLevel.ERROR });
const app = new App({
  receiver,
  authorize: async () => ({ botToken: "xoxb-bare" }),
  logLevel: LogLevel.ERROR,
});
app.command("/iceberg", async ({ ack }) => {
  await ack({ response_type: "ephemeral", text: "ok" });
});
const server = await receiver.start(0);
const address = server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`,
);
process.on("SIGTERM", () => {
  void app.stop().then(() => process.exit(0));
});
