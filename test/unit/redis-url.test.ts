import { describe, expect, it } from "vitest";
import { keySlot } from "../../src/adapters/redis/connection.js";
import { loadConfig, REDACTED, redactConfig, secretValues } from "../../src/config.js";
import { describeTopology, parseRedisUrl } from "../../src/redis-url.js";

describe("REDIS_URL forms", () => {
  it("keeps a standalone URL for ioredis, without our own options", () => {
    const t = parseRedisUrl("rediss://bot:s3cret@redis.example:6380/2?waitReplicas=1&family=6");
    expect(t).toMatchObject({
      kind: "standalone",
      tls: true,
      username: "bot",
      password: "s3cret",
      waitReplicas: 1,
    });
    expect(t.kind === "standalone" && t.url).toBe("rediss://bot:s3cret@redis.example:6380/2?family=6");
    expect(parseRedisUrl("redis://127.0.0.1:6379")).toMatchObject({ waitReplicas: 0, tls: false });
  });

  it("reads Sentinels, the primary's name, the database, credentials and TLS options", () => {
    const t = parseRedisUrl(
      "rediss+sentinel://:p%40ss@s1.example:26379,s2.example,[::1]:26380/mymaster/3?sentinelPassword=sp&sentinelTls=false&tlsServername=redis.example",
    );
    expect(t).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "s1.example", port: 26379 },
        { host: "s2.example", port: 26379 },
        { host: "::1", port: 26380 },
      ],
      name: "mymaster",
      db: 3,
      username: undefined,
      password: "p@ss",
      tls: true,
      tlsServername: "redis.example",
      sentinelPassword: "sp",
      sentinelTls: false,
      // A Sentinel primary has a replica: alerts wait for it by default.
      waitReplicas: 1,
      waitTimeoutMs: 1000,
    });
    expect(parseRedisUrl("redis+sentinel://h:26379/m?waitReplicas=0")).toMatchObject({
      waitReplicas: 0,
      sentinelTls: false,
    });
  });

  it("reads a Cluster seed list", () => {
    expect(parseRedisUrl("redis+cluster://default:pw@n1:7000,n2:7001,n3")).toMatchObject({
      kind: "cluster",
      nodes: [
        { host: "n1", port: 7000 },
        { host: "n2", port: 7001 },
        { host: "n3", port: 6379 },
      ],
      username: "default",
      password: "pw",
      waitReplicas: 0,
    });
  });

  it("names what is wrong, never the password", () => {
    const cases: Array<[string, RegExp]> = [
      ["redis+sentinel://:hunter22@h:26379", /names no primary/],
      ["redis+sentinel://:hunter22@h:99999/m", /port of "h:99999"/],
      ["redis+cluster://:hunter22@h:1/0", /Cluster URL has no path/],
      ["redis+cluster://:hunter22@h:1?sentinelTls=true", /applies to redis\+sentinel/],
      ["redis+sentinel://:hunter22@h/m?bogus=1", /unknown option bogus/],
      ["redis+sentinel://:hunter22@h/m?waitReplicas=x", /waitReplicas must be an integer/],
      ["http://:hunter22@h:1", /scheme http/],
      ["redis://:hunter22@h:1?sentinelPassword=x", /does not apply/],
    ];
    for (const [url, message] of cases) {
      expect(() => parseRedisUrl(url), url).toThrow(message);
      try {
        parseRedisUrl(url);
      } catch (error) {
        expect((error as Error).message).not.toContain("hunter22");
      }
    }
  });

  it("describes a topology without credentials", () => {
    expect(describeTopology(parseRedisUrl("redis+sentinel://:pw@a:1,b:2/m?sentinelPassword=sp"))).toBe(
      "sentinel m via a:1,b:2",
    );
    expect(describeTopology(parseRedisUrl("redis+cluster://:pw@a:1,b:2"))).toBe("cluster seeds a:1,b:2");
    expect(describeTopology(parseRedisUrl("redis://:pw@a:1"))).toBe("standalone a:1");
  });
});

describe("config with Sentinel and Cluster URLs", () => {
  it("masks passwords of multi-host URLs and of the parsed topology, and scrubs them from text", () => {
    const config = loadConfig({
      REDIS_URL:
        "redis+sentinel://:redis-password@s1:26379,s2:26379/mymaster?sentinelPassword=sentinel-password",
    });
    const printed = JSON.stringify(redactConfig(config));
    expect(printed).not.toContain("redis-password");
    expect(printed).not.toContain("sentinel-password");
    expect(printed).toContain(REDACTED);
    expect(secretValues(config)).toEqual(expect.arrayContaining(["redis-password", "sentinel-password"]));
    expect(config.redis.kind).toBe("sentinel");
  });

  it("refuses an invalid REDIS_URL at startup with the reason", () => {
    expect(() => loadConfig({ REDIS_URL: "redis+sentinel://h:26379" })).toThrow(
      /REDIS_URL: .*names no primary/,
    );
  });
});

describe("cluster key slots", () => {
  it("hashes like Redis Cluster, and a hash tag puts keys in one slot", () => {
    expect(keySlot("123456789")).toBe(12739);
    expect(keySlot("foo")).toBe(12182);
    expect(keySlot("{iceberg-bot}:open:db.events")).toBe(keySlot("{iceberg-bot}:seq:incident"));
    expect(keySlot("{iceberg-bot}:open:db.events")).toBe(keySlot("iceberg-bot"));
    // An empty tag does not count: the whole key is hashed.
    expect(keySlot("{}foo")).not.toBe(keySlot("foo"));
  });
});
