import { describe, expect, it } from "vitest";
import { describeUpstreamError } from "../../../src/adapters/evidence/upstream-error.js";

describe("describeUpstreamError", () => {
  it.each([
    [
      "Iceberg ErrorModel",
      '{"error":{"message":"Table does not exist: db.nope","type":"NoSuchTableException","code":404}}',
      { message: "Table does not exist: db.nope", type: "NoSuchTableException", code: 404 },
    ],
    [
      "Kafka Connect",
      '{"error_code":409,"message":"Cannot complete request momentarily due to stale configuration"}',
      { message: "Cannot complete request momentarily due to stale configuration", code: 409 },
    ],
    [
      "Flink errors list (first line only)",
      '{"errors":["org.apache.flink.runtime.rest.NotFoundException: Job abc not found\\n\\tat x.y"]}',
      { message: "org.apache.flink.runtime.rest.NotFoundException: Job abc not found" },
    ],
    [
      "Prometheus",
      '{"status":"error","errorType":"bad_data","error":"parse error"}',
      { message: "parse error", type: "bad_data" },
    ],
    [
      "OAuth2",
      '{"error":"invalid_client","error_description":"Unknown client"}',
      { message: "Unknown client", type: "invalid_client" },
    ],
  ])("reads the %s shape", (_name, body, expected) => {
    expect(describeUpstreamError(body)).toEqual(expected);
  });

  it("takes the first text line of an HTML error page", () => {
    const html = "<html><body><h1>502 Bad Gateway</h1>\n<p>nginx</p></body></html>";
    expect(describeUpstreamError(html).message).toBe("502 Bad Gateway");
  });

  it("gives nothing for an empty body and clips very long messages", () => {
    expect(describeUpstreamError("  ")).toEqual({});
    const long = JSON.stringify({ error: { message: "x".repeat(2000), type: "T", code: 500 } });
    expect(describeUpstreamError(long).message?.length).toBeLessThan(510);
  });
});
