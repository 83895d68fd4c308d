// The Flink Kubernetes Operator's published CRDs (test/fixtures/upstream/flink-kubernetes-operator)
// as validators: each version's openAPIV3Schema, checked with ajv the way the API server checks a
// structural schema, so a field the schema does not declare is an error (the API server would prune
// it silently) unless the schema preserves unknown fields there. Also the upstream example
// resources the Kubernetes API stand-in's objects start from.

import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import { parse, parseAllDocuments } from "yaml";

const CRD_DIR = "test/fixtures/upstream/flink-kubernetes-operator";

type Schema = Record<string, unknown>;

/** additionalProperties: false wherever the structural schema would prune unknown fields. */
function strict(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value && typeof value === "object") {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, strict(v)]),
      );
    } else if ((key === "items" || key === "additionalProperties") && value && typeof value === "object") {
      out[key] = strict(value as Schema);
    } else if (key === "anyOf" && Array.isArray(value)) {
      out.anyOf = value.map((v) => strict(v as Schema));
    } else out[key] = value;
  }
  if (
    out.properties !== undefined &&
    out.additionalProperties === undefined &&
    out["x-kubernetes-preserve-unknown-fields"] !== true
  ) {
    out.additionalProperties = false;
  }
  return out;
}

// Code optimisation costs seconds on the FlinkDeployment schema (its pod templates) and saves nothing here.
const ajv = new Ajv({ allErrors: true, strict: false, code: { optimize: false } });
ajv.addVocabulary(["x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string"]);

const validators = new Map<string, ValidateFunction>();

/** The validator for one kind ("FlinkDeployment" or "FlinkSessionJob") at v1beta1. */
function crdValidator(kind: "FlinkDeployment" | "FlinkSessionJob"): ValidateFunction {
  const cached = validators.get(kind);
  if (cached) return cached;
  const file = kind === "FlinkDeployment" ? "flinkdeployments" : "flinksessionjobs";
  const crd = parse(readFileSync(`${CRD_DIR}/${file}.flink.apache.org-v1.yml`, "utf8"));
  const version = crd.spec.versions.find((v: { name: string }) => v.name === "v1beta1");
  const schema = strict(version.schema.openAPIV3Schema);
  // The API server itself owns these; the CRD leaves them out of its schema.
  (schema.properties as Record<string, Schema>).apiVersion = { const: "flink.apache.org/v1beta1" };
  (schema.properties as Record<string, Schema>).kind = { const: kind };
  (schema.properties as Record<string, Schema>).metadata = {
    type: "object",
    required: ["name", "namespace", "uid", "resourceVersion"],
    properties: { name: { type: "string", minLength: 1 }, namespace: { type: "string", minLength: 1 } },
  };
  schema.required = ["apiVersion", "kind", "metadata", "spec"];
  const validate = ajv.compile(schema);
  validators.set(kind, validate);
  return validate;
}

/** Problems of one object against its CRD; empty when valid. */
export function crdProblems(object: { kind?: unknown }): string[] {
  if (object.kind !== "FlinkDeployment" && object.kind !== "FlinkSessionJob")
    return [`kind ${String(object.kind)}`];
  const validate = crdValidator(object.kind);
  if (validate(object)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || "(root)"} ${e.message}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
  );
}

/** The upstream example documents (`examples/<file>`), by metadata.name. */
export function upstreamExamples(
  file: string,
): Map<string, { kind: string; metadata: { name: string }; spec: unknown }> {
  const docs = parseAllDocuments(readFileSync(`${CRD_DIR}/examples/${file}`, "utf8")).map((d) => d.toJSON());
  return new Map(docs.map((d) => [d.metadata.name, d]));
}
