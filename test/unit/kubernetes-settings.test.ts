// The `kubernetes` section of BOT_CONFIG, the in-cluster API address from the pod's environment,
// and the credentials read from service account files or a kubeconfig (files given through an
// injected reader): every mistake is named with where it is and what to do.

import { describe, expect, it } from "vitest";
import {
  inClusterConnection,
  kubeconfigConnection,
} from "../../src/adapters/evidence/kubernetes/credentials.js";
import { restUrlOf } from "../../src/adapters/evidence/kubernetes/flink-resources.js";
import { ENV_NAMES, loadConfig, PLATFORM_ENV_NAMES, redactConfig } from "../../src/config.js";
import { parseBotConfigText } from "../../src/core/settings.js";
import { ErrorCode } from "../../src/errors.js";

const files =
  (map: Record<string, string>) =>
  (path: string): string => {
    const text = map[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    return text;
  };

describe("kubernetes settings in BOT_CONFIG", () => {
  it("reads namespaces, a kubeconfig and its context, with defaults for the rest", () => {
    const bot = parseBotConfigText(
      "kubernetes:\n  namespaces: [flink, payments]\n  kubeconfig: /etc/kube/config\n  context: prod\n",
      "bot.yaml",
    );
    expect(bot.kubernetes).toEqual({
      namespaces: ["flink", "payments"],
      kubeconfig: "/etc/kube/config",
      context: "prod",
      refreshSeconds: 60,
      pageSize: 100,
    });
    expect(parseBotConfigText("defaults: {}\n", "bot.yaml").kubernetes).toBeUndefined();
  });

  it("names each mistake with its file and line", () => {
    const text = [
      "defaults: {}",
      "kubernetes:",
      "  namespaces: [flink, Flink_Prod]",
      "  refreshSeconds: 1",
      "  restUrlTemplate: http://{name}.{cluster}:8081",
      "  namespace: flink",
      "",
    ].join("\n");
    const message = (() => {
      try {
        parseBotConfigText(text, "bot.yaml");
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain(
      "kubernetes.namespaces.1: a Kubernetes namespace name (lower case), or * (at bot.yaml:3)",
    );
    expect(message).toContain(
      "kubernetes.refreshSeconds: Too small: expected number to be >=5 (at bot.yaml:4)",
    );
    expect(message).toContain(
      "kubernetes.restUrlTemplate: only the placeholders {name}, {namespace}, {port} (at bot.yaml:5)",
    );
    expect(message).toContain(
      "kubernetes.namespace: unknown key (allowed: namespaces, kubeconfig, context, refreshSeconds, pageSize, restUrlTemplate, flinkAuth, flinkTls) (at bot.yaml:6)",
    );
  });

  it("refuses * beside names, a namespace twice, and a context without a kubeconfig", () => {
    expect(() => parseBotConfigText("kubernetes:\n  namespaces: ['*', flink]\n", "b.yaml")).toThrow(
      /\* \(every namespace\) stands alone/,
    );
    expect(() => parseBotConfigText("kubernetes:\n  namespaces: [flink, flink]\n", "b.yaml")).toThrow(
      /a namespace is listed twice/,
    );
    expect(() =>
      parseBotConfigText("kubernetes:\n  namespaces: [flink]\n  context: prod\n", "b.yaml"),
    ).toThrow(/context needs a kubeconfig/);
    expect(() => parseBotConfigText("kubernetes:\n  namespaces: []\n", "b.yaml")).toThrow(
      /at least one namespace/,
    );
  });

  it("reads every discovered JobManager's auth and TLS as a source's: secrets from the environment or files only", () => {
    const base = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" };
    const yaml = (access: string) => `kubernetes:\n  namespaces: [flink]\n${access}`;
    const config = loadConfig(
      {
        ...base,
        JM_PASSWORD: "jm-secret-9",
        BOT_CONFIG: yaml(
          "  flinkAuth: {type: basic, username: bot, passwordEnv: JM_PASSWORD}\n  flinkTls: {caFile: /tls/ca.pem}\n",
        ),
      },
      { readFile: files({ "/tls/ca.pem": "CA PEM" }) },
    );
    expect(config.discoveredFlink).toEqual({
      auth: { kind: "basic", username: "bot", password: "jm-secret-9" },
      tls: { ca: "CA PEM" },
    });
    expect(JSON.stringify(redactConfig(config))).not.toContain("jm-secret-9");
    expect(loadConfig({ ...base, BOT_CONFIG: yaml("") }).discoveredFlink).toEqual({ auth: { kind: "none" } });
    expect(loadConfig(base).discoveredFlink).toBeUndefined();
    expect(() =>
      loadConfig({ ...base, BOT_CONFIG: yaml("  flinkAuth: {type: bearer, token: abc123}\n") }),
    ).toThrow(
      /kubernetes\.flinkAuth\.token: secrets are never written in BOT_CONFIG: use tokenEnv or tokenFile/,
    );
    expect(() =>
      loadConfig({ ...base, BOT_CONFIG: yaml("  flinkAuth: {type: bearer, tokenEnv: JM_TOKEN}\n") }),
    ).toThrow(/kubernetes\.flinkAuth\.tokenEnv: the environment variable JM_TOKEN is not set/);
    expect(() =>
      loadConfig(
        { ...base, BOT_CONFIG: yaml("  flinkTls: {caFile: /tls/missing.pem}\n") },
        { readFile: files({}) },
      ),
    ).toThrow(/kubernetes\.flinkTls\.caFile: cannot read \/tls\/missing\.pem \(ENOENT\)/);
  });

  it("takes the in-cluster API address from the pod's environment, which the manifests never set", () => {
    expect(loadConfig({}).kubernetesService).toBeUndefined();
    expect(
      loadConfig({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "6443" }).kubernetesService,
    ).toEqual({
      host: "10.96.0.1",
      port: 6443,
    });
    expect(loadConfig({ KUBERNETES_SERVICE_HOST: "10.96.0.1" }).kubernetesService?.port).toBe(443);
    expect(() =>
      loadConfig({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "http" }),
    ).toThrow(/KUBERNETES_SERVICE_PORT/);
    for (const name of PLATFORM_ENV_NAMES) expect(ENV_NAMES).not.toContain(name);
  });
});

describe("Kubernetes credentials", () => {
  const sa = "/sa";
  const saFiles = { "/sa/token": "tok-1\n", "/sa/ca.crt": "CA PEM", "/sa/namespace": "iceberg-bot" };

  it("in cluster: the service account's token (read again each time), CA and the service address", () => {
    const map = { ...saFiles };
    const connection = inClusterConnection({
      service: { host: "fd00::1", port: 6443 },
      serviceAccountDir: sa,
      readFile: files(map),
    });
    expect(connection.server.href).toBe("https://[fd00::1]:6443/");
    expect(connection.ca).toBe("CA PEM");
    expect(connection.token?.()).toBe("tok-1");
    map["/sa/token"] = "tok-2";
    expect(connection.token?.()).toBe("tok-2");
    expect(connection.identity).toBe("the service account of namespace iceberg-bot");
    // A real (JWT) token names its account in its sub claim.
    const claims = Buffer.from(JSON.stringify({ sub: "system:serviceaccount:iceberg-bot:bot" })).toString(
      "base64url",
    );
    const named = inClusterConnection({
      service: { host: "10.0.0.1", port: 443 },
      serviceAccountDir: sa,
      readFile: files({ ...saFiles, "/sa/token": `eyJhbGciOiJSUzI1NiJ9.${claims}.c2ln` }),
    });
    expect(named.identity).toBe("service account iceberg-bot/bot");
  });

  it("in cluster: says what is missing when not in a pod or without the token mount", () => {
    expect(() => inClusterConnection({ serviceAccountDir: sa, readFile: files(saFiles) })).toThrow(
      expect.objectContaining({
        code: ErrorCode.ConfigInvalid,
        message: expect.stringContaining("KUBERNETES_SERVICE_HOST is not set"),
        hint: expect.stringContaining("kubernetes.kubeconfig"),
      }),
    );
    expect(() =>
      inClusterConnection({
        service: { host: "10.0.0.1", port: 443 },
        serviceAccountDir: sa,
        readFile: files({}),
      }),
    ).toThrow(
      expect.objectContaining({
        message: "Kubernetes discovery: cannot read the service account token at /sa/token (ENOENT)",
        hint: expect.stringContaining("worker-token.patch.yaml"),
      }),
    );
  });

  it("kubeconfig: picks the current context, resolves relative files beside it, decodes inline data", () => {
    const kubeconfig = [
      "current-context: a",
      "clusters:",
      "  - { name: c1, cluster: { server: 'https://k8s.example:6443', certificate-authority: certs/ca.crt } }",
      `  - { name: c2, cluster: { server: 'https://k8s2.example', certificate-authority-data: ${Buffer.from("CA2").toString("base64")} } }`,
      "contexts:",
      "  - { name: a, context: { cluster: c1, user: cert } }",
      "  - { name: b, context: { cluster: c2, user: tok } }",
      "users:",
      "  - { name: cert, user: { client-certificate: certs/me.crt, client-key-data: " +
        Buffer.from("KEY").toString("base64") +
        " } }",
      "  - { name: tok, user: { tokenFile: /var/run/tok } }",
    ].join("\n");
    const read = files({
      "/etc/kube/config": kubeconfig,
      "/etc/kube/certs/ca.crt": "CA1",
      "/etc/kube/certs/me.crt": "CERT",
      "/var/run/tok": "file-token\n",
    });
    const a = kubeconfigConnection("/etc/kube/config", { readFile: read });
    expect([a.server.href, a.ca, a.cert, a.key, a.token]).toEqual([
      "https://k8s.example:6443/",
      "CA1",
      "CERT",
      "KEY",
      undefined,
    ]);
    expect(a.identity).toBe('kubeconfig context "a" (user "cert")');
    const b = kubeconfigConnection("/etc/kube/config", { context: "b", readFile: read });
    expect([b.server.href, b.ca, b.token?.()]).toEqual(["https://k8s2.example/", "CA2", "file-token"]);
  });

  it("kubeconfig: names a missing context, an exec plugin, a half client certificate, never a token", () => {
    const base = (user: string) =>
      `current-context: a\nclusters: [{name: c, cluster: {server: 'https://k'}}]\ncontexts: [{name: a, context: {cluster: c, user: u}}]\nusers: [{name: u, user: ${user}}]\n`;
    const read = (text: string) => files({ "/k": text });
    expect(() =>
      kubeconfigConnection("/k", { context: "prod", readFile: read(base("{token: s3cret}")) }),
    ).toThrow('Kubernetes discovery: the kubeconfig /k has no context "prod" (contexts: a)');
    expect(() => kubeconfigConnection("/k", { readFile: read(base("{exec: {command: aws}}")) })).toThrow(
      /exec plugin, auth provider or password, which the bot does not run; give it a token, tokenFile or client certificate/,
    );
    expect(() =>
      kubeconfigConnection("/k", { readFile: read(base("{client-certificate-data: QQ==}")) }),
    ).toThrow(/client certificate without its key/);
    expect(() => kubeconfigConnection("/k", { readFile: read("clusters: [}") })).toThrow(
      /the kubeconfig \/k is not YAML/,
    );
    const badServer = () =>
      kubeconfigConnection("/k", {
        readFile: read(base("{token: s3cret}").replace("https://k", "not a url")),
      });
    expect(badServer).toThrow(/names a server that is not a URL in cluster "c"/);
    expect(badServer).not.toThrow(/s3cret/);
  });
});

describe("a FlinkDeployment's REST URL", () => {
  const deployment = (flinkConfiguration: unknown) =>
    ({ metadata: { name: "d", namespace: "n" }, spec: { flinkConfiguration } }) as never;
  it("is the operator's -rest Service, on the configured port and scheme, or the template", () => {
    expect(restUrlOf(deployment(undefined), "n", "d")).toBe("http://d-rest.n.svc:8081");
    expect(restUrlOf(deployment({ "rest.port": "9091" }), "n", "d")).toBe("http://d-rest.n.svc:9091");
    expect(restUrlOf(deployment({ rest: { port: 9092 } }), "n", "d")).toBe("http://d-rest.n.svc:9092");
    expect(restUrlOf(deployment({ "security.ssl.rest.enabled": "true" }), "n", "d")).toBe(
      "https://d-rest.n.svc:8081",
    );
    expect(restUrlOf(deployment({ "rest.port": "x" }), "n", "d")).toBe("http://d-rest.n.svc:8081");
    expect(restUrlOf(deployment({}), "n", "d", "https://flink.example/{namespace}/{name}/")).toBe(
      "https://flink.example/n/d/",
    );
  });
});
