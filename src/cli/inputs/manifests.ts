// Reads the manifests an apply tool applied and keeps only their identities: a request never
// carries manifest content (SPEC section 1), so Secret data and env values cannot leak through it.
//
// The manifests may be what was sent (files, `helm get manifest`) or what the API server answered
// (`kubectl apply -o json|yaml`, a `kind: List` of the objects as stored). Server output carries
// `metadata.generation`, the generation this very apply produced: it goes into the request, so a
// status written for the previous generation can never count (SPEC section 2).
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { parseAllDocuments } from "yaml";
import type { ObservationRequestInput } from "../../verdicts/contract/schemas.js";

type DeclaredResource = ObservationRequestInput["resources"][number];

export class ManifestError extends Error {
  override name = "ManifestError";
}

const bootstrapLabel = "stagewatch.io/bootstrap";
const manifestFile = /\.(ya?ml|json)$/i;

/** `-f -`, as kubectl spells it: the manifests come on standard input. */
export const stdinPath = "-";

export interface ReadOptions {
  /** Standard input's text, read once; default: this process's stdin to its end. */
  readStdin?: () => Promise<string>;
}

/**
 * Files named on the command line, and the .yaml/.yml/.json files of named directories
 * (recursive, sorted); `-` stays `-` (standard input).
 */
export async function manifestFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    if (path === stdinPath) {
      files.push(path);
      continue;
    }
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
export async function readDeclaredResources(paths: readonly string[], options: ReadOptions = {}): Promise<DeclaredResource[]> {
  if (paths.filter((path) => path === stdinPath).length > 1) {
    throw new ManifestError("-f -: standard input can be read only once");
  }
  const resources: DeclaredResource[] = [];
  for (const file of await manifestFiles(paths)) {
    const stdin = file === stdinPath;
    const source = stdin ? await (options.readStdin ?? (() => text(process.stdin)))() : await readFile(file, "utf8");
    parseAllDocuments(source).forEach((document, index) => {
      const where = `${stdin ? "standard input" : file} document ${index + 1}`;
      if (document.errors.length > 0) throw new ManifestError(`${where}: ${document.errors[0]!.message}`);
      const value: unknown = document.toJS();
      if (value === null || value === undefined) return;
      resources.push(...identitiesOf(value, where));
    });
  }
  if (resources.length === 0) {
    throw new ManifestError(`no Kubernetes objects found in ${paths.map((p) => (p === stdinPath ? "standard input" : p)).join(", ")}`);
  }
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
  // Only the API server writes metadata.generation (a manifest's own is dropped on apply), so it
  // is there only in server output and names what this apply produced.
  const generation = object.metadata?.["generation"];
  return [
    {
      apiVersion,
      kind,
      name,
      ...(typeof namespace === "string" ? { namespace } : {}),
      ...(Number.isSafeInteger(generation) && (generation as number) > 0 ? { generation: generation as number } : {}),
      ...(kind === "Job" && labels?.[bootstrapLabel] !== undefined ? { bootstrap: true } : {}),
    },
  ];
}
