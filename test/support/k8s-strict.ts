// Unknown-field check for Kubernetes manifests, as `kubectl apply --validate=strict` does: the
// fields of each document are walked against the API types kubernetes-models declares (read with
// the TypeScript compiler), so a misspelt or misplaced key is reported with its path. The models'
// own validate() checks types and required fields but lets unknown keys through.

import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "../..");

/** apiVersion/kind -> the module and interface kubernetes-models declares for it. */
const K8S_TYPES: Record<string, { module: string; type: string }> = {
  "v1/Namespace": { module: "kubernetes-models/v1/Namespace", type: "INamespace" },
  "v1/ConfigMap": { module: "kubernetes-models/v1/ConfigMap", type: "IConfigMap" },
  "v1/Secret": { module: "kubernetes-models/v1/Secret", type: "ISecret" },
  "v1/Service": { module: "kubernetes-models/v1/Service", type: "IService" },
  "v1/ServiceAccount": { module: "kubernetes-models/v1/ServiceAccount", type: "IServiceAccount" },
  "apps/v1/Deployment": { module: "kubernetes-models/apps/v1/Deployment", type: "IDeployment" },
  "policy/v1/PodDisruptionBudget": {
    module: "kubernetes-models/policy/v1/PodDisruptionBudget",
    type: "IPodDisruptionBudget",
  },
  "networking.k8s.io/v1/NetworkPolicy": {
    module: "kubernetes-models/networking.k8s.io/v1/NetworkPolicy",
    type: "INetworkPolicy",
  },
  "networking.k8s.io/v1/Ingress": {
    module: "kubernetes-models/networking.k8s.io/v1/Ingress",
    type: "IIngress",
  },
  "rbac.authorization.k8s.io/v1/Role": {
    module: "kubernetes-models/rbac.authorization.k8s.io/v1/Role",
    type: "IRole",
  },
  "rbac.authorization.k8s.io/v1/RoleBinding": {
    module: "kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding",
    type: "IRoleBinding",
  },
  "rbac.authorization.k8s.io/v1/ClusterRole": {
    module: "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole",
    type: "IClusterRole",
  },
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": {
    module: "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding",
    type: "IClusterRoleBinding",
  },
};

let checker: { check: ts.TypeChecker; types: Map<string, ts.Type> } | undefined;

/** One program over a virtual file that names every type above. */
function load() {
  if (checker) return checker;
  const entries = Object.entries(K8S_TYPES);
  const file = path.join(root, "test/support/__k8s-types__.ts");
  const text = entries
    .map(([, t], i) => `import type { ${t.type} as T${i} } from "${t.module}";\nexport type K${i} = T${i};`)
    .join("\n");
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language) =>
    name === file ? ts.createSourceFile(name, text, language) : getSourceFile(name, language);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const check = program.getTypeChecker();
  const source = program.getSourceFile(file) as ts.SourceFile;
  const types = new Map<string, ts.Type>();
  const aliases = source.statements.filter(ts.isTypeAliasDeclaration);
  entries.forEach(([key], i) => {
    const alias = aliases[i] as ts.TypeAliasDeclaration;
    types.set(key, check.getTypeAtLocation(alias.name));
  });
  checker = { check, types };
  return checker;
}

/** The paths of every key of `doc` its Kubernetes type does not declare. */
export function unknownFields(doc: { apiVersion: string; kind: string }): string[] {
  const { check, types } = load();
  const type = types.get(`${doc.apiVersion}/${doc.kind}`);
  if (!type) return [`${doc.apiVersion} ${doc.kind}: no type known here`];
  const found: string[] = [];
  const walk = (t: ts.Type, value: unknown, at: string) => {
    const plain = check.getNonNullableType(t);
    if (Array.isArray(value)) {
      const element = check.getIndexTypeOfType(plain, ts.IndexKind.Number);
      if (element) for (const [i, v] of value.entries()) walk(element, v, `${at}[${i}]`);
      return;
    }
    if (value === null || typeof value !== "object") return;
    // A union (IntOrString and the like): the object member, when there is one.
    const objectType = plain.isUnion()
      ? plain.types.find((m) => (m.flags & ts.TypeFlags.Object) !== 0)
      : plain;
    if (!objectType || check.getIndexTypeOfType(objectType, ts.IndexKind.String)) return; // a map
    for (const [key, child] of Object.entries(value)) {
      const property = check.getPropertyOfType(objectType, key);
      if (!property) found.push(`${at}.${key}`);
      else walk(check.getTypeOfSymbol(property), child, `${at}.${key}`);
    }
  };
  walk(type, doc, doc.kind);
  return found;
}
