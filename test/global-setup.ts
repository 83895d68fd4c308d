// Integration suites need the real Redis at REDIS_URL. Fail the whole run loudly when it is not
// there, rather than letting each suite time out or skip.
import { Redis } from "ioredis";

export default async function checkRedis(): Promise<void> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new Error(
      `Redis is not reachable at ${url} (${(error as Error).message}). Start it with ` +
        '`redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no` ' +
        "or `docker compose up -d redis`, or set REDIS_URL.",
    );
  } finally {
    client.disconnect();
  }
}
