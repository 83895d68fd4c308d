// The Kubernetes API stand-in's RBAC evaluation, over the shipped discovery manifests: they grant
// the bot's service account get and list on the two Flink resources, only in their namespace (or,
// with the ClusterRole, everywhere), and nothing else; a ClusterRole bound by a RoleBinding counts
// only in the binding's namespace, as on a real API server.

import { describe, expect, it } from "vitest";
import {
  RBAC_CLUSTER_MANIFEST,
  RBAC_NAMESPACE_MANIFEST,
} from "../../../src/adapters/evidence/kubernetes/client.js";
import { allowed, serviceAccountUser } from "../../../src/sim/servers/kubernetes-api.js";
import { rbacFor } from "../../support/kubernetes-platform.js";

const bot = serviceAccountUser("iceberg-bot", "iceberg-bot");

describe("RBAC in the Kubernetes API stand-in", () => {
  it("the namespace Role: get and list on flinkdeployments and flinksessionjobs in its namespace only", () => {
    const rbac = rbacFor(RBAC_NAMESPACE_MANIFEST);
    for (const resource of ["flinkdeployments", "flinksessionjobs"]) {
      expect(allowed(rbac, bot, "list", resource, "flink")).toBe(true);
      expect(allowed(rbac, bot, "get", resource, "flink", "x")).toBe(true);
      for (const verb of ["watch", "create", "update", "patch", "delete"])
        expect(allowed(rbac, bot, verb, resource, "flink"), verb).toBe(false);
      expect(allowed(rbac, bot, "list", resource, "payments")).toBe(false);
      expect(allowed(rbac, bot, "list", resource, undefined)).toBe(false);
    }
    expect(allowed(rbac, bot, "list", "flinkstatesnapshots", "flink")).toBe(false);
    expect(
      allowed(rbac, serviceAccountUser("flink", "iceberg-bot"), "list", "flinkdeployments", "flink"),
    ).toBe(false);
    expect(
      allowed(
        rbac,
        { name: "system:serviceaccount:iceberg-bot:iceberg-bot" },
        "list",
        "flinkdeployments",
        "flink",
      ),
    ).toBe(true);
  });

  it("the ClusterRole: every namespace and the cluster scope through its ClusterRoleBinding, one namespace through a RoleBinding", () => {
    const rbac = rbacFor(RBAC_CLUSTER_MANIFEST);
    expect(allowed(rbac, bot, "list", "flinkdeployments", undefined)).toBe(true);
    expect(allowed(rbac, bot, "list", "flinksessionjobs", "anywhere")).toBe(true);
    expect(allowed(rbac, bot, "delete", "flinkdeployments", "anywhere")).toBe(false);

    const clusterRoleOnly = rbac.filter((d) => d.kind === "ClusterRole");
    const perNamespace = [
      ...clusterRoleOnly,
      {
        kind: "RoleBinding",
        metadata: { name: "b", namespace: "team-a" },
        roleRef: { kind: "ClusterRole", name: "iceberg-bot-flink-discovery" },
        subjects: [{ kind: "ServiceAccount", name: "iceberg-bot", namespace: "iceberg-bot" }],
      },
    ];
    expect(allowed(perNamespace, bot, "list", "flinkdeployments", "team-a")).toBe(true);
    expect(allowed(perNamespace, bot, "list", "flinkdeployments", "team-b")).toBe(false);
    expect(allowed(perNamespace, bot, "list", "flinkdeployments", undefined)).toBe(false);
  });

  it("resourceNames limit get to the names listed", () => {
    const rbac = [
      {
        kind: "Role",
        metadata: { name: "r", namespace: "flink" },
        rules: [
          {
            apiGroups: ["flink.apache.org"],
            resources: ["flinkdeployments"],
            verbs: ["get"],
            resourceNames: ["a"],
          },
        ],
      },
      {
        kind: "RoleBinding",
        metadata: { name: "b", namespace: "flink" },
        roleRef: { kind: "Role", name: "r" },
        subjects: [{ kind: "Group", name: "readers" }],
      },
    ];
    const reader = { name: "jane", groups: ["readers"] };
    expect(allowed(rbac, reader, "get", "flinkdeployments", "flink", "a")).toBe(true);
    expect(allowed(rbac, reader, "get", "flinkdeployments", "flink", "b")).toBe(false);
    expect(allowed(rbac, { name: "joe" }, "get", "flinkdeployments", "flink", "a")).toBe(false);
  });
});
