// What `kubectl apply -k` applies from a kustomization, read with the yaml package: its resources
// and the ConfigMaps its configMapGenerator makes (envs files and files). Generated names keep the
// generator's name here; kustomize adds a hash suffix and rewrites the references to it.

import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parse, parseAllDocuments } from "yaml";

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked by the schema validators
  [key: string]: any;
}

export interface Kustomization {
  namespace?: string;
  resources?: string[];
  configMapGenerator?: Array<{
    name: string;
    envs?: string[];
    files?: string[];
    literals?: string[];
    options?: { labels?: Record<string, string>; disableNameSuffixHash?: boolean };
  }>;
  generatorOptions?: { disableNameSuffixHash?: boolean };
  images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
}

export function readKustomization(dir: string): Kustomization {
  return parse(readFileSync(join(dir, "kustomization.yaml"), "utf8")) as Kustomization;
}

/** Every document of a manifest file, with the file's name. */
export function readManifests(file: string): Array<{ file: string; doc: Manifest }> {
  return parseAllDocuments(readFileSync(file, "utf8")).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]?.message}`);
    return { file: basename(file), doc: d.toJSON() as Manifest };
  });
}

/** An env file as kustomize reads it: KEY=VALUE lines, `#` comments. */
function readEnvFile(file: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const at = trimmed.indexOf("=");
    data[trimmed.slice(0, at)] = trimmed.slice(at + 1);
  }
  return data;
}

/** The resources and generated ConfigMaps a kustomization applies, in the kustomization's namespace. */
export function kustomizeBuild(dir: string): Array<{ file: string; doc: Manifest }> {
  const k = readKustomization(dir);
  const out = (k.resources ?? []).flatMap((file) => readManifests(join(dir, file)));
  for (const generator of k.configMapGenerator ?? []) {
    const data: Record<string, string> = {};
    for (const env of generator.envs ?? []) Object.assign(data, readEnvFile(join(dir, env)));
    for (const literal of generator.literals ?? []) {
      const at = literal.indexOf("=");
      data[literal.slice(0, at)] = literal.slice(at + 1);
    }
    for (const entry of generator.files ?? []) {
      const [key, path] = entry.includes("=") ? entry.split("=") : [basename(entry), entry];
      data[key as string] = readFileSync(join(dir, path as string), "utf8");
    }
    out.push({
      file: "kustomization.yaml",
      doc: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: generator.name,
          ...(generator.options?.labels ? { labels: generator.options.labels } : {}),
        },
        data,
      },
    });
  }
  for (const { doc } of out)
    if (k.namespace && doc.kind !== "Namespace") doc.metadata.namespace ??= k.namespace;
  return out;
}
