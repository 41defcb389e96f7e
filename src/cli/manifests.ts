// Reads the manifests an apply tool applied and keeps only their identities: a request never
// carries manifest content (SPEC section 1), so Secret data and env values cannot leak through it.
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { ObservationRequestInput } from "../verdicts/schemas.js";

type DeclaredResource = ObservationRequestInput["resources"][number];

export class ManifestError extends Error {
  override name = "ManifestError";
}

const bootstrapLabel = "stagewatch.io/bootstrap";
const manifestFile = /\.(ya?ml|json)$/i;

/** Files named on the command line, and the .yaml/.yml/.json files of named directories (recursive, sorted). */
export async function manifestFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch((cause: unknown) => {
      throw new ManifestError(`${path}: cannot read (${(cause as Error).message})`, { cause });
    });
    if (!info.isDirectory()) {
      files.push(path);
      continue;
    }
    const entries = await readdir(path, { recursive: true, withFileTypes: true });
    files.push(
      ...entries
        .filter((e) => e.isFile() && manifestFile.test(e.name))
        .map((e) => join(e.parentPath, e.name))
        .sort(),
    );
  }
  return files;
}

/** The identity of every object in the files, `kind: List` flattened, empty documents skipped. */
export async function readDeclaredResources(paths: readonly string[]): Promise<DeclaredResource[]> {
  const resources: DeclaredResource[] = [];
  for (const file of await manifestFiles(paths)) {
    const text = await readFile(file, "utf8");
    parseAllDocuments(text).forEach((document, index) => {
      const where = `${file} document ${index + 1}`;
      if (document.errors.length > 0) throw new ManifestError(`${where}: ${document.errors[0]!.message}`);
      const value: unknown = document.toJS();
      if (value === null || value === undefined) return;
      resources.push(...identitiesOf(value, where));
    });
  }
  if (resources.length === 0) throw new ManifestError(`no Kubernetes objects found in ${paths.join(", ")}`);
  return resources;
}

function identitiesOf(value: unknown, where: string): DeclaredResource[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ManifestError(`${where}: not a Kubernetes object`);
  }
  const object = value as { apiVersion?: unknown; kind?: unknown; metadata?: Record<string, unknown>; items?: unknown };
  if (object.kind === "List" && Array.isArray(object.items)) {
    return object.items.flatMap((item, i) => identitiesOf(item, `${where} item ${i + 1}`));
  }
  const { apiVersion, kind } = object;
  const name = object.metadata?.["name"];
  const namespace = object.metadata?.["namespace"];
  if (typeof apiVersion !== "string") throw new ManifestError(`${where}: apiVersion: required`);
  if (typeof kind !== "string") throw new ManifestError(`${where}: kind: required`);
  if (typeof name !== "string") {
    // generateName objects get their name from the API server; no identity exists to observe.
    throw new ManifestError(`${where}: metadata.name: required (generateName cannot be observed)`);
  }
  const labels = object.metadata?.["labels"] as Record<string, unknown> | undefined;
  return [
    {
      apiVersion,
      kind,
      name,
      ...(typeof namespace === "string" ? { namespace } : {}),
      ...(kind === "Job" && labels?.[bootstrapLabel] !== undefined ? { bootstrap: true } : {}),
    },
  ];
}
