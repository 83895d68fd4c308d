// `catalog.namespace.table` with several named catalogs: a first part naming a catalog picks it
// (also when a namespace has that name), an engine's own catalog name is looked past, and a
// first part that names nothing is reported so the reply can list the catalogs.

import { describe, expect, it } from "vitest";
import { type CatalogSourceSpec, pickCatalog } from "../../src/core/sources/model.js";

type Spec = Pick<CatalogSourceSpec, "name" | "origin" | "tables" | "namespaces" | "isDefault">;
const catalog = (name: string, more: Partial<Spec> = {}): Spec => ({
  name,
  origin: "config",
  tables: [],
  namespaces: [],
  isDefault: false,
  ...more,
});
const CATALOGS = [
  catalog("lake-us", { isDefault: true, tables: ["ops.audit_log"] }),
  catalog("lake-eu", { tables: ["sales.orders"], namespaces: ["finance"] }),
];
const pick = (input: string, catalogs: readonly Spec[] = CATALOGS) => {
  const { catalog, ...rest } = pickCatalog(catalogs, input);
  return { catalog: catalog?.name, ...rest };
};

describe("pickCatalog", () => {
  it("takes a first part naming a catalog as that catalog, whatever BOT_CONFIG maps the rest to", () => {
    expect(pick("lake-eu.sales.orders")).toEqual({
      catalog: "lake-eu",
      table: "sales.orders",
      prefixed: true,
      ambiguous: false,
    });
    // Case as Spark compares identifiers; the table keeps its spelling.
    expect(pick(" LAKE-US.web.Clicks ")).toMatchObject({ catalog: "lake-us", table: "web.Clicks" });
    // Nested namespaces keep every level after the catalog.
    expect(pick("lake-us.a.b.events")).toMatchObject({ catalog: "lake-us", table: "a.b.events" });
  });

  it("reads a two-part name as namespace.table even when the namespace is a catalog's name", () => {
    expect(pick("lake-eu.orders")).toEqual({
      catalog: "lake-us",
      table: "lake-eu.orders",
      prefixed: false,
      ambiguous: false,
    });
  });

  it("picks the catalog when the first part is also a namespace BOT_CONFIG maps, and says so", () => {
    const catalogs = [...CATALOGS, catalog("finance", { namespaces: [] })];
    expect(pick("finance.ledger.entries", catalogs)).toEqual({
      catalog: "finance",
      table: "ledger.entries",
      prefixed: true,
      ambiguous: true,
    });
    // The catalog's name in front of the whole name means the namespace.
    expect(pick("lake-eu.finance.ledger.entries", catalogs)).toMatchObject({
      catalog: "lake-eu",
      table: "finance.ledger.entries",
      ambiguous: false,
    });
  });

  it("looks past an engine's own catalog name to where BOT_CONFIG maps the rest", () => {
    expect(pick("iceberg.sales.orders")).toEqual({
      catalog: "lake-eu",
      table: "iceberg.sales.orders",
      prefixed: false,
      ambiguous: false,
      unknownPrefix: "iceberg",
    });
    // Mapped nowhere: the default catalog, with the unknown first part kept for the reply.
    expect(pick("prod.web.clicks")).toMatchObject({ catalog: "lake-us", unknownPrefix: "prod" });
  });

  it("reads a first part that is a mapped namespace as the namespace", () => {
    expect(pick("finance.ledger.entries")).toEqual({
      catalog: "lake-eu",
      table: "finance.ledger.entries",
      prefixed: false,
      ambiguous: false,
    });
  });

  it("never takes the single-URL catalog's implicit name for a catalog prefix", () => {
    const catalogs = [catalog("default", { origin: "env", isDefault: true }), ...CATALOGS.slice(1)];
    expect(pick("default.staging.events", catalogs)).toMatchObject({
      catalog: "default",
      table: "default.staging.events",
      prefixed: false,
      unknownPrefix: "default",
    });
  });
});
