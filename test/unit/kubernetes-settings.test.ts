// The `kubernetes` section of BOT_CONFIG, the in-cluster API address from the pod's environment,
// and the credentials read from service account files or a kubeconfig (files given through an
// injected reader): every mistake is named with where it is and what to do.

import { describe, expect, it } from "vitest";
import * as yaml from "yaml";
import {
  inClusterConnection,
  kubeconfigConnection,
} from "../../src/adapters/evidence/kubernetes/credentials.js";
import { restUrlOf } from "../../src/adapters/evidence/kubernetes/flink-resources.js";
import { ENV_NAMES, loadConfig, PLATFORM_ENV_NAMES, redactConfig, secretValues } from "../../src/config.js";
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
      yaml,
    );
    expect(bot.kubernetes).toEqual({
      namespaces: ["flink", "payments"],
      kubeconfig: "/etc/kube/config",
      context: "prod",
      refreshSeconds: 60,
      pageSize: 100,
      flinkAccess: [],
      maxItems: 5000,
      maxConcurrentJobManagers: 8,
    });
    expect(parseBotConfigText("defaults: {}\n", "bot.yaml", yaml).kubernetes).toBeUndefined();
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
        parseBotConfigText(text, "bot.yaml", yaml);
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
      "kubernetes.namespace: unknown key (allowed: namespaces, kubeconfig, context, refreshSeconds, pageSize, restUrlTemplate, flinkAccess, maxItems, maxConcurrentJobManagers, flinkAuth, flinkTls) (at bot.yaml:6)",
    );
  });

  it("refuses * beside names, a namespace twice, and a context without a kubeconfig", () => {
    expect(() => parseBotConfigText("kubernetes:\n  namespaces: ['*', flink]\n", "b.yaml", yaml)).toThrow(
      /\* \(every namespace\) stands alone/,
    );
    expect(() => parseBotConfigText("kubernetes:\n  namespaces: [flink, flink]\n", "b.yaml", yaml)).toThrow(
      /a namespace is listed twice/,
    );
    expect(() =>
      parseBotConfigText("kubernetes:\n  namespaces: [flink]\n  context: prod\n", "b.yaml", yaml),
    ).toThrow(/context needs a kubeconfig/);
    expect(() => parseBotConfigText("kubernetes:\n  namespaces: []\n", "b.yaml", yaml)).toThrow(
      /at least one namespace/,
    );
  });

  it("reads the discovered JobManagers' auth and TLS per namespace, as a source's: secrets from the environment or files only", () => {
    const base = { SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "s" };
    const yaml = (access: string) => `kubernetes:\n  namespaces: [flink, team-b]\n${access}`;
    const config = loadConfig(
      {
        ...base,
        JM_PASSWORD: "jm-secret-9",
        BOT_CONFIG: yaml(
          [
            "  flinkAccess:",
            "    - namespaces: [flink]",
            "      matchLabels: {app.kubernetes.io/part-of: ingest}",
            "      auth: {type: basic, username: bot, passwordEnv: JM_PASSWORD}",
            "      tls: {caFile: /tls/ca.pem}",
            "",
          ].join("\n"),
        ),
      },
      { readFile: files({ "/tls/ca.pem": "CA PEM" }) },
    );
    expect(config.discoveredFlink).toEqual([
      {
        namespaces: ["flink"],
        matchLabels: { "app.kubernetes.io/part-of": "ingest" },
        auth: { kind: "basic", username: "bot", password: "jm-secret-9" },
        tls: { ca: "CA PEM" },
      },
    ]);
    expect(JSON.stringify(redactConfig(config))).not.toContain("jm-secret-9");
    expect(secretValues(config)).toContain("jm-secret-9");
    expect(loadConfig({ ...base, BOT_CONFIG: yaml("") }).discoveredFlink).toEqual([]);
    expect(loadConfig(base).discoveredFlink).toBeUndefined();
    const rule = (auth: string) => `  flinkAccess:\n    - namespaces: [flink]\n      auth: ${auth}\n`;
    expect(() => loadConfig({ ...base, BOT_CONFIG: yaml(rule("{type: bearer, token: abc123}")) })).toThrow(
      /kubernetes\.flinkAccess\.0\.auth\.token: secrets are never written in BOT_CONFIG: use tokenEnv or tokenFile/,
    );
    expect(() =>
      loadConfig({ ...base, BOT_CONFIG: yaml(rule("{type: bearer, tokenEnv: JM_TOKEN}")) }),
    ).toThrow(/kubernetes\.flinkAccess\.0\.auth\.tokenEnv: the environment variable JM_TOKEN is not set/);
    expect(() =>
      loadConfig(
        {
          ...base,
          BOT_CONFIG: yaml(
            "  flinkAccess:\n    - namespaces: [flink]\n      tls: {caFile: /tls/missing.pem}\n",
          ),
        },
        { readFile: files({}) },
      ),
    ).toThrow(/kubernetes\.flinkAccess\.0\.tls\.caFile: cannot read \/tls\/missing\.pem \(ENOENT\)/);
  });

  it("refuses one credential for every JobManager, * in a credential's namespaces, and TLS over an http template", () => {
    const parse = (text: string) => () =>
      parseBotConfigText(`kubernetes:\n  namespaces: [flink]\n${text}`, "b.yaml", yaml);
    expect(parse("  flinkAuth: {type: bearer, tokenEnv: T}\n")).toThrow(
      /kubernetes\.flinkAuth: flinkAuth gave one credential to every discovered JobManager; use flinkAccess/,
    );
    expect(parse("  flinkTls: {caFile: /ca.pem}\n")).toThrow(/flinkTls gave one credential to every/);
    expect(parse("  flinkAccess:\n    - namespaces: ['*']\n")).toThrow(
      /kubernetes\.flinkAccess\.0\.namespaces\.0: a Kubernetes namespace name/,
    );
    expect(
      parse(
        "  restUrlTemplate: http://{name}.example:{port}\n  flinkAccess:\n    - namespaces: [flink]\n      tls: {caFile: /ca.pem}\n",
      ),
    ).toThrow(/the template must be https:\/\/, never http:\/\//);
    expect(parse("  restUrlTemplate: http://bot:pw@{name}.example\n")).toThrow(
      /no user:password@ in the template/,
    );
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
    const url = (...args: Parameters<typeof restUrlOf>) => restUrlOf(...args);
    expect(url(deployment(undefined), "n", "d")).toEqual({ url: "http://d-rest.n.svc:8081" });
    expect(url(deployment({ "rest.port": "9091" }), "n", "d")).toEqual({ url: "http://d-rest.n.svc:9091" });
    expect(url(deployment({ rest: { port: 9092 } }), "n", "d")).toEqual({ url: "http://d-rest.n.svc:9092" });
    expect(url(deployment({ "security.ssl.rest.enabled": "true" }), "n", "d")).toEqual({
      url: "https://d-rest.n.svc:8081",
    });
    expect(url(deployment({ "rest.port": "x" }), "n", "d")).toEqual({ url: "http://d-rest.n.svc:8081" });
    expect(url(deployment({}), "n", "d", "https://flink.example/{namespace}/{name}/")).toEqual({
      url: "https://flink.example/n/d/",
    });
  });

  it("is https when TLS is configured for it, whatever the deployment's own flinkConfiguration says", () => {
    expect(
      restUrlOf(deployment({ "security.ssl.rest.enabled": "false" }), "n", "d", undefined, true),
    ).toEqual({
      url: "https://d-rest.n.svc:8081",
    });
    expect(restUrlOf(deployment({}), "n", "d", "http://{name}.example", true)).toEqual({
      refused: "TLS is configured for its JobManager, but its REST URL is not https",
    });
  });

  it("percent-encodes what it substitutes and refuses a host the template does not make, or user:password@", () => {
    const template = "https://flink.example/{namespace}/{name}/";
    // Names are checked as RFC 1123 labels before this; these come from a template's own reach.
    expect(restUrlOf(deployment({}), "n", "a@127.0.0.1:6999/#", template)).toEqual({
      url: "https://flink.example/n/a%40127.0.0.1%3A6999%2F%23/",
    });
    expect(restUrlOf(deployment({}), "n", "{namespace}", template)).toEqual({
      url: "https://flink.example/n/%7Bnamespace%7D/",
    });
    const hostTemplate = "http://{name}.{namespace}.svc:{port}";
    expect(restUrlOf(deployment({}), "n", "a@127.0.0.1:6999/#", hostTemplate)).toMatchObject({
      refused: expect.stringMatching(/not a URL|not the one the template makes/),
    });
    expect(restUrlOf(deployment({}), "n", "b/../../..", hostTemplate)).toMatchObject({
      refused: expect.stringMatching(/not a URL|not the one the template makes/),
    });
  });
});
