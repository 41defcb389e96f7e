/**
 * The chart under test, through the pinned Helm CLI that build-helm.sh builds (or reuses): lint,
 * render, and apply what it rendered to a cluster with server-side apply.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";

export const CHART_DIR = fileURLToPath(new URL("../../helm/stagewatch/", import.meta.url));

const BUILD_SCRIPT = fileURLToPath(new URL("./build-helm.sh", import.meta.url));

export class HelmError extends Error {
  override name = "HelmError";
}

let helmPath: string | undefined;

/** Path of the helm binary; builds it on first use on this machine (minutes), then reuses it. */
export function helmBinary(): string {
  if (helmPath !== undefined) return helmPath;
  const result = spawnSync("bash", [BUILD_SCRIPT], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  if (result.error !== undefined) throw new HelmError(`could not run ${BUILD_SCRIPT}`, { cause: result.error });
  const line = result.stdout.split("\n").find((l) => l.startsWith("helm="));
  if (result.status !== 0 || line === undefined) {
    throw new HelmError(`${BUILD_SCRIPT} failed (exit ${result.status ?? result.signal}); its output is above`);
  }
  helmPath = line.slice("helm=".length);
  return helmPath;
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with a private home, so no user's repositories, plugins or kubeconfig leak in. */
export function helm(args: readonly string[]): HelmResult {
  const home = fileURLToPath(new URL("../../.stagewatch/helm-home/", import.meta.url));
  const result = spawnSync(helmBinary(), [...args], {
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      HELM_CACHE_HOME: `${home}cache`,
      HELM_CONFIG_HOME: `${home}config`,
      HELM_DATA_HOME: `${home}data`,
      KUBECONFIG: `${home}no-kubeconfig`,
    },
  });
  if (result.error !== undefined) throw new HelmError(`could not run helm ${args.join(" ")}`, { cause: result.error });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** `--values FILE` and `--set-json key=value` arguments for a release's values. */
export interface ValueArgs {
  valuesFiles?: readonly string[];
  /** Applied after the files, each as `--set-json path=<JSON>`. */
  set?: Readonly<Record<string, unknown>>;
}

function valueArgs(values: ValueArgs): string[] {
  return [
    ...(values.valuesFiles ?? []).flatMap((file) => ["--values", file]),
    ...Object.entries(values.set ?? {}).flatMap(([path, value]) => ["--set-json", `${path}=${JSON.stringify(value)}`]),
  ];
}

export function lintChart(values: ValueArgs = {}): HelmResult {
  return helm(["lint", "--strict", CHART_DIR, ...valueArgs(values)]);
}

export interface RenderOptions extends ValueArgs {
  releaseName?: string;
  namespace?: string;
}

/** `helm template`'s raw result, for tests that expect it to fail. */
export function templateChart(options: RenderOptions = {}): HelmResult {
  return helm([
    "template",
    options.releaseName ?? "stagewatch",
    CHART_DIR,
    "--namespace",
    options.namespace ?? "stagewatch",
    ...valueArgs(options),
  ]);
}

/** The objects `helm template` renders, in its order; throws with helm's message when it fails. */
export function renderChart(options: RenderOptions = {}): KubernetesObject[] {
  const result = templateChart(options);
  if (result.status !== 0) throw new HelmError(`helm template failed: ${result.stderr.trim()}`);
  return parseAllDocuments(result.stdout)
    .map((document) => {
      if (document.errors.length > 0) throw new HelmError("helm rendered invalid YAML", { cause: document.errors[0] });
      return document.toJS() as KubernetesObject | null;
    })
    .filter((object): object is KubernetesObject => object !== null);
}

/**
 * Server-side applies each object, as `kubectl apply --server-side` does. With `dryRun` the API
 * server runs everything (defaulting, schema and admission, RBAC escalation checks) and persists
 * nothing. Server-side apply rejects fields the schema does not declare, so a misspelt field fails
 * here instead of being dropped.
 */
export async function applyObjects(
  kc: KubeConfig,
  objects: readonly KubernetesObject[],
  options: { dryRun: boolean },
): Promise<KubernetesObject[]> {
  const client = KubernetesObjectApi.makeApiClient(kc);
  const applied: KubernetesObject[] = [];
  for (const object of objects) {
    applied.push(
      await client.patch(
        object,
        undefined,
        options.dryRun ? "All" : undefined,
        "stagewatch-e2e",
        true,
        PatchStrategy.ServerSideApply,
      ),
    );
  }
  return applied;
}
