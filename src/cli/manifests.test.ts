import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ManifestError, readDeclaredResources } from "./manifests.js";

const fixtures = new URL("../../test/fixtures/manifests/app/", import.meta.url).pathname;

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
