import { describe, expect, it } from "vitest";
import { allPages } from "../../src/adapters/evidence/catalog/pages.js";
import { ErrorCode } from "../../src/errors.js";

describe("allPages", () => {
  it("follows next-page-token to the last page, starting without a token", async () => {
    const asked: (string | undefined)[] = [];
    const pages: Record<string, { items: number[]; nextPageToken?: string }> = {
      "": { items: [1, 2], nextPageToken: "b" },
      b: { items: [3], nextPageToken: "c" },
      c: { items: [4] },
    };
    const items = await allPages("list", async (token) => {
      asked.push(token);
      return pages[token ?? ""]!;
    });
    expect(items).toEqual([1, 2, 3, 4]);
    expect(asked).toEqual([undefined, "b", "c"]);
  });

  it("refuses a catalog whose tokens come back around instead of looping forever", async () => {
    await expect(
      allPages("list tables in db", async (token) => ({
        items: [1],
        nextPageToken: token === "a" ? "b" : "a",
      })),
    ).rejects.toMatchObject({ code: ErrorCode.SourceMalformed });
  });
});
