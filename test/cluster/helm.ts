/**
 * The chart under test, through the pinned Helm CLI that build-helm.sh builds (or reuses): lint,
 * render, and apply what it rendered to a cluster with server-side apply.
 */
import { spawnSync } from "node:child_process";
import { runBuildScript } from "./binaries.ts";
import { REPO_ROOT, runToCompletion } from "./stagewatch.ts";
import { request as httpsRequest, type RequestOptions } from "node:https";
import { fileURLToPath } from "node:url";
import type { KubeConfig, KubernetesObject } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";

export const CHART_DIR = fileURLToPath(new URL("../../helm/stagewatch/", import.meta.url));

const BUILD_SCRIPT = fileURLToPath(new URL("./build-helm.sh", import.meta.url));

export class HelmError extends Error {
  override name = "HelmError";
}

let helmPath: string | undefined;

/**
 * Builds helm on first use on this machine (minutes), then reuses it; call once before `helm`.
 * Asynchronous so that a cold build does not block the test worker's event loop.
 */
export async function ensureHelm(): Promise<string> {
  if (helmPath !== undefined) return helmPath;
  const path = (await runBuildScript(BUILD_SCRIPT)).get("helm");
  if (path === undefined) throw new HelmError(`${BUILD_SCRIPT} did not report helm`);
  helmPath = path;
  return helmPath;
}

export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** helm's environment: a private home, so no user's repositories, plugins or kubeconfig leak in. */
function helmEnv(): NodeJS.ProcessEnv {
  const home = fileURLToPath(new URL("../../.stagewatch/helm-home/", import.meta.url));
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    HELM_CACHE_HOME: `${home}cache`,
    HELM_CONFIG_HOME: `${home}config`,
    HELM_DATA_HOME: `${home}data`,
    KUBECONFIG: `${home}no-kubeconfig`,
  };
}

function helmBinary(): string {
  if (helmPath === undefined) throw new HelmError("call ensureHelm() first");
  return helmPath;
}

/** Runs helm (lint, template: nothing that reaches a cluster). */
export function helm(args: readonly string[]): HelmResult {
  const result = spawnSync(helmBinary(), [...args], { encoding: "utf8", env: helmEnv() });
  if (result.error !== undefined) throw new HelmError(`could not run helm ${args.join(" ")}`, { cause: result.error });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs helm against the cluster of `kubeconfig` (install, upgrade, test, uninstall), without
 * blocking the event loop: `helm test` waits on a pod the test itself must finish meanwhile.
 */
export async function helmOnCluster(kubeconfig: string, args: readonly string[], options: { timeoutMs?: number } = {}): Promise<HelmResult> {
  const result = await runToCompletion(helmBinary(), [...args, "--kubeconfig", kubeconfig], { cwd: REPO_ROOT, env: helmEnv(), timeoutMs: options.timeoutMs ?? 300_000 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** `--values FILE` and `--set-json key=value` arguments for a release's values. */
export interface ValueArgs {
  valuesFiles?: readonly string[];
  /** Applied after the files, each as `--set-json path=<JSON>`. */
  set?: Readonly<Record<string, unknown>>;
  /**
   * Which of the chart's refusals to answer with `intended`: a NATS without authentication
   * (`nats.auth.unauthenticated`), no tenants file (`tenants.singleTenant`), no signing key
   * (`signing.unsigned`). The local cluster's nats-server is open and one account, by intent, so
   * each defaults to true; a test of a refusal passes false for it. A value file or `set` giving the
   * tenants file or the key makes its answer moot (the chart reads it only without them).
   */
  intended?: { unauthenticated?: boolean; singleTenant?: boolean; unsigned?: boolean };
}

const intendedValues = { unauthenticated: "nats.auth.unauthenticated", singleTenant: "tenants.singleTenant", unsigned: "signing.unsigned" } as const;

function valueArgs(values: ValueArgs): string[] {
  return [
    ...Object.entries(intendedValues).flatMap(([name, path]) =>
      values.intended?.[name as keyof typeof intendedValues] === false ? [] : ["--set", `${path}=intended`],
    ),
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
  /** Only this template's objects (`--show-only`, a path under the chart: `templates/tests/observe.yaml`). */
  showOnly?: string;
}

/** `helm template`'s raw result, for tests that expect it to fail. */
export function templateChart(options: RenderOptions = {}): HelmResult {
  return helm([
    "template",
    options.releaseName ?? "stagewatch",
    CHART_DIR,
    "--namespace",
    options.namespace ?? "stagewatch",
    ...(options.showOnly !== undefined ? ["--show-only", options.showOnly] : []),
    ...valueArgs(options),
  ]);
}

/** `helm install` of the chart, or `helm upgrade` of the release it made, with these values. */
export function installChart(kubeconfig: string, command: "install" | "upgrade", options: RenderOptions & { releaseName: string; namespace: string }): Promise<HelmResult> {
  return helmOnCluster(kubeconfig, [command, options.releaseName, CHART_DIR, "--namespace", options.namespace, ...valueArgs(options)]);
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

export class ApplyError extends Error {
  override name = "ApplyError";
  /** The API server's HTTP status; 0 when no request was made. */
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

/** One request to the API server with the kubeconfig's credentials; the body is sent as is. */
async function kubeRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  body?: { contentType: string; text: string },
): Promise<{ status: number; text: string }> {
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new ApplyError("the kubeconfig names no cluster", 0);
  const options: RequestOptions = { method, headers: body ? { "content-type": body.contentType } : {} };
  await kc.applyToHTTPSOptions(options);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, server), options, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body?.text);
  });
}

/** The collection path of an object's kind, through discovery of its group version. */
async function collectionPath(kc: KubeConfig, object: KubernetesObject): Promise<string> {
  const apiVersion = object.apiVersion ?? "";
  const root = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const discovery = await kubeRequest(kc, "GET", root);
  if (discovery.status !== 200) throw new ApplyError(`discovery of ${apiVersion}: ${discovery.status} ${discovery.text}`, discovery.status);
  const resources = (JSON.parse(discovery.text) as { resources: { name: string; kind: string; namespaced: boolean }[] }).resources;
  const resource = resources.find((r) => r.kind === object.kind && !r.name.includes("/"));
  if (resource === undefined) throw new ApplyError(`${object.kind} is not served in ${apiVersion}`, 404);
  const namespace = object.metadata?.namespace;
  return resource.namespaced && namespace !== undefined
    ? `${root}/namespaces/${encodeURIComponent(namespace)}/${resource.name}`
    : `${root}/${resource.name}`;
}

/**
 * Server-side applies each object, as `kubectl apply --server-side` does, with strict field
 * validation: a field the schema does not declare fails instead of being dropped. With `dryRun`
 * the API server runs everything (defaulting, validation, admission, the RBAC escalation check)
 * and persists nothing. The objects go out as rendered: client-node's typed API would serialise
 * them through its models and silently drop unknown fields before the server could see them.
 */
export async function applyObjects(
  kc: KubeConfig,
  objects: readonly KubernetesObject[],
  options: { dryRun: boolean },
): Promise<KubernetesObject[]> {
  const applied: KubernetesObject[] = [];
  for (const object of objects) {
    const query = new URLSearchParams({ fieldManager: "stagewatch-e2e", force: "true", fieldValidation: "Strict" });
    if (options.dryRun) query.set("dryRun", "All");
    const path = `${await collectionPath(kc, object)}/${encodeURIComponent(object.metadata?.name ?? "")}?${query}`;
    const response = await kubeRequest(kc, "PATCH", path, {
      contentType: "application/apply-patch+yaml",
      text: JSON.stringify(object),
    });
    if (response.status !== 200 && response.status !== 201) {
      const message = (JSON.parse(response.text) as { message?: string }).message ?? response.text;
      throw new ApplyError(`${object.kind}/${object.metadata?.name}: ${response.status} ${message}`, response.status);
    }
    applied.push(JSON.parse(response.text) as KubernetesObject);
  }
  return applied;
}
