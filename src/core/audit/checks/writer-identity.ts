// Snapshots should say who wrote them. Over the last 200 snapshots:
// warn: any without a writer identity; fail: half or more.

import { committerOf } from "../../attribution/attribute.js";
import { type AuditRule, result } from "../context.js";

const SAMPLE = 200;

export const writerIdentity: AuditRule = {
  id: "writer-identity",
  check(ctx) {
    const from = Math.max(0, ctx.snapshots.length - SAMPLE);
    let anonymous = 0;
    for (let i = from; i < ctx.snapshots.length; i++)
      if (committerOf(ctx.snapshots[i]!).kind === "anonymous") anonymous++;
    const sampled = ctx.snapshots.length - from;
    const values = { sampledSnapshots: String(sampled), withoutIdentity: String(anonymous) };
    const fix = `df.writeTo("${[...ctx.target.table.namespace, ctx.target.table.name].join(".")}").option("snapshot-property.job", "<job name>").append()`;
    if (anonymous === 0) return result("pass", `All ${sampled} recent snapshots name their writer`, values);
    const status = anonymous * 2 >= sampled ? "fail" : "warn";
    return result(
      status,
      `${anonymous} of the last ${sampled} snapshots carry no writer identity`,
      values,
      fix,
    );
  },
};
