import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ManifestError, readDeclaredResources } from "./manifests.js";

const fixtures = new URL("../../../test/fixtures/manifests/app/", import.meta.url).pathname;
const serverOutput = new URL("../../../test/fixtures/manifests/server-output/", import.meta.url).pathname;
const stdinOf = (text: string) => ({ readStdin: () => Promise.resolve(text) });

async function fileWith(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "stagewatch-manifests-"));
  const file = join(dir, "m.yaml");
  await writeFile(file, text);
  return file;
}

describe("readDeclaredResources", () => {
  test("a directory yields identities only, Lists flattened, bootstrap label carried, in file order", async () => {
    const resources = await readDeclaredResources([fixtures]);
    expect(resources).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", name: "api-config", namespace: "payments" },
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "system:payments-reader" },
      { apiVersion: "v1", kind: "Namespace", name: "payments" },
      { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate", namespace: "payments", bootstrap: true },
      { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
    ]);
    // Manifest content (env values, ConfigMap data) never reaches the request.
    expect(JSON.stringify(resources)).not.toMatch(/hunter2|debug|image/);
  });

  test("a generateName object is refused with the document it came from", async () => {
    const file = await fileWith("apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: smoke-\n");
    await expect(readDeclaredResources([file])).rejects.toThrow(`${file} document 1: metadata.name: required`);
  });

  test("a document without kind names the field", async () => {
    const file = await fileWith("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nmetadata: {name: b}\n");
    await expect(readDeclaredResources([file])).rejects.toThrow(`${file} document 2: kind: required`);
  });

  test("broken YAML is a ManifestError, not a crash", async () => {
    const file = await fileWith("apiVersion: v1\nkind: [unclosed\n");
    await expect(readDeclaredResources([file])).rejects.toBeInstanceOf(ManifestError);
  });

  test("a missing path and an empty file are errors", async () => {
    await expect(readDeclaredResources(["/nonexistent/x.yaml"])).rejects.toThrow("/nonexistent/x.yaml: cannot read");
    await expect(readDeclaredResources([await fileWith("# nothing\n")])).rejects.toThrow("no Kubernetes objects found");
  });
});

describe("readDeclaredResources from standard input (-f -)", () => {
  test("kubectl apply -o json: the List's items, with the generation the apply produced", async () => {
    const output = await readFile(`${serverOutput}kubectl-apply.json`, "utf8");
    const resources = await readDeclaredResources(["-"], stdinOf(output));
    expect(resources).toEqual([
      // A ConfigMap has no generation: the server writes none, and none is asked for.
      { apiVersion: "v1", kind: "ConfigMap", name: "api-config", namespace: "payments" },
      // observedGeneration 3 in the status is the stale reading the generation fences off.
      { apiVersion: "apps/v1", kind: "Deployment", name: "api", namespace: "payments", generation: 4 },
      { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate", namespace: "payments", generation: 1, bootstrap: true },
    ]);
    expect(JSON.stringify(resources)).not.toMatch(/hunter2|registry\.example|last-applied/);
  });

  test("kubectl apply -o yaml of a single object: the object itself, not a List", async () => {
    const output = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  generation: 2\n  name: web\n  namespace: shop\n  uid: 0f\nspec: {}\nstatus: {observedGeneration: 1}\n";
    expect(await readDeclaredResources(["-"], stdinOf(output))).toEqual([
      { apiVersion: "apps/v1", kind: "Deployment", name: "web", namespace: "shop", generation: 2 },
    ]);
  });

  test("helm get manifest: every document, Source comments skipped, no namespace (the release's, from --namespace)", async () => {
    const output = await readFile(`${serverOutput}helm-get-manifest.yaml`, "utf8");
    expect(await readDeclaredResources(["-"], stdinOf(output))).toEqual([
      { apiVersion: "v1", kind: "ServiceAccount", name: "payments-api" },
      { apiVersion: "apps/v1", kind: "Deployment", name: "payments-api" },
      { apiVersion: "batch/v1", kind: "Job", name: "payments-migrate", bootstrap: true },
    ]);
  });

  test("standard input and files together, in the order named", async () => {
    const file = await fileWith("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-file}\n");
    const resources = await readDeclaredResources([file, "-"], stdinOf("apiVersion: v1\nkind: Secret\nmetadata: {name: from-stdin}\n"));
    expect(resources.map((r) => r.name)).toEqual(["from-file", "from-stdin"]);
  });

  test("errors name standard input; it can be named only once; empty input has no objects", async () => {
    await expect(readDeclaredResources(["-"], stdinOf("apiVersion: v1\nmetadata: {name: a}\n"))).rejects.toThrow(
      "standard input document 1: kind: required",
    );
    await expect(readDeclaredResources(["-", "-"], stdinOf(""))).rejects.toThrow("-f -: standard input can be read only once");
    await expect(readDeclaredResources(["-"], stdinOf(""))).rejects.toThrow("no Kubernetes objects found in standard input");
  });

  test("a generation that is not a positive integer is not sent", async () => {
    const output = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, generation: '3'}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b, generation: 0}\n";
    expect(await readDeclaredResources(["-"], stdinOf(output))).toEqual([
      { apiVersion: "apps/v1", kind: "Deployment", name: "a" },
      { apiVersion: "apps/v1", kind: "Deployment", name: "b" },
    ]);
  });
});
