import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, expect, test } from "vitest";
import { kubeconfigNamespace } from "./kubeconfigNamespace.js";

const config = (current: string | undefined, contexts: Record<string, string | undefined>) =>
  [
    "apiVersion: v1",
    "kind: Config",
    ...(current === undefined ? [] : [`current-context: ${current}`]),
    "contexts:",
    ...Object.entries(contexts).map(([name, namespace]) =>
      namespace === undefined ? `- name: ${name}\n  context: {cluster: c, user: u}` : `- name: ${name}\n  context: {cluster: c, user: u, namespace: ${namespace}}`,
    ),
    "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443'}}]",
    "users: [{name: u, user: {token: t}}]",
  ].join("\n");

async function directoryWith(files: Record<string, string>): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "stagewatch-kubeconfig-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(directory, name, ".."), { recursive: true });
    await writeFile(join(directory, name), text);
  }
  return directory;
}

describe("kubeconfigNamespace", () => {
  test("the current context's namespace from $KUBECONFIG", async () => {
    const dir = await directoryWith({ a: config("prod", { dev: "dev-ns", prod: "payments" }) });
    expect(await kubeconfigNamespace({ KUBECONFIG: join(dir, "a") })).toBe("payments");
  });

  test("a context without a namespace, no current context, or an unknown one: default", async () => {
    const dir = await directoryWith({
      bare: config("prod", { prod: undefined }),
      none: config(undefined, { prod: "payments" }),
      unknown: config("gone", { prod: "payments" }),
    });
    for (const file of ["bare", "none", "unknown"]) expect(await kubeconfigNamespace({ KUBECONFIG: join(dir, file) })).toBe("default");
  });

  test("a list: missing files skipped, the first current-context wins, the first definition of a context wins", async () => {
    const dir = await directoryWith({
      first: config(undefined, { prod: "from-first" }),
      second: config("prod", { prod: "from-second" }),
      third: config("dev", { dev: "dev-ns" }),
    });
    const list = [join(dir, "missing"), join(dir, "first"), join(dir, "second"), join(dir, "third")].join(delimiter);
    expect(await kubeconfigNamespace({ KUBECONFIG: list })).toBe("from-first");
    expect(await kubeconfigNamespace({ KUBECONFIG: `${delimiter}${join(dir, "third")}${delimiter}` })).toBe("dev-ns");
  });

  test("without $KUBECONFIG, ~/.kube/config", async () => {
    const home = await directoryWith({ ".kube/config": config("prod", { prod: "home-ns" }) });
    expect(await kubeconfigNamespace({}, { home })).toBe("home-ns");
    expect(await kubeconfigNamespace({ KUBECONFIG: "" }, { home })).toBe("home-ns");
  });

  test("JSON kubeconfigs read the same", async () => {
    const dir = await directoryWith({
      json: JSON.stringify({ "current-context": "prod", contexts: [{ name: "prod", context: { cluster: "c", user: "u", namespace: "json-ns" } }] }),
    });
    expect(await kubeconfigNamespace({ KUBECONFIG: join(dir, "json") })).toBe("json-ns");
  });

  test("malformed YAML, or no kubeconfig outside a pod: default", async () => {
    const dir = await directoryWith({ broken: "current-context: [unclosed\n  - : :" });
    expect(await kubeconfigNamespace({ KUBECONFIG: join(dir, "broken") })).toBe("default");
    expect(await kubeconfigNamespace({}, { home: join(dir, "nowhere") })).toBe("default");
  });

  test("no kubeconfig inside a pod: the service account's namespace", async () => {
    const dir = await directoryWith({ "sa/namespace": "payments\n" });
    const env = { KUBERNETES_SERVICE_HOST: "10.0.0.1" };
    expect(await kubeconfigNamespace(env, { home: join(dir, "nowhere"), serviceAccountDirectory: join(dir, "sa") })).toBe("payments");
  });
});
