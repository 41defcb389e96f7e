/**
 * The container image as an operator gets it (build-image.sh: the Dockerfile built with buildah on
 * the stand-in base) and the chart's pod run from it with podman: `podmanRunArgs` turns a rendered
 * pod template into `podman run` arguments the way a kubelet would run it, with what the pod spec
 * says and nothing more (user and groups, read-only root, capabilities, the memory limit, command
 * and args, the environment with its references resolved, Secret and ConfigMap volumes as files with
 * their modes, the ServiceAccount token where client libraries look for it).
 */
import { chownSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KubernetesObject, V1ConfigMap, V1Container, V1EnvVar, V1PodSpec, V1Secret } from "@kubernetes/client-node";
import { runBuildScript } from "./binaries.ts";
import { runToCompletion, type CommandResult } from "./stagewatch.ts";

const BUILD_SCRIPT = fileURLToPath(new URL("./build-image.sh", import.meta.url));

export class ImageError extends Error {
  override name = "ImageError";
}

export interface BuiltImage {
  /** `localhost/stagewatch:<version>`. */
  image: string;
  /** The stand-in for node:<version>-bookworm-slim it was built on. */
  base: string;
  sizeBytes: number;
  baseSizeBytes: number;
  layers: number;
  baseLayers: number;
  user: string;
  buildSeconds: number;
  /** The configuration podman needs to find the image (its own storage under the cache). */
  env: { CONTAINERS_CONF: string; CONTAINERS_STORAGE_CONF: string };
}

let built: Promise<BuiltImage> | undefined;

/**
 * Builds the image (the stand-in base once per machine, minutes; the Dockerfile's layers from
 * buildah's cache when the tree did not change), once per test file. Asynchronous: a cold build
 * must not block the worker's event loop.
 */
export function ensureImage(): Promise<BuiltImage> {
  built ??= (async () => {
    const values = await runBuildScript(BUILD_SCRIPT);
    const get = (name: string): string => {
      const value = values.get(name);
      if (value === undefined) throw new ImageError(`${BUILD_SCRIPT} did not report ${name}`);
      return value;
    };
    return {
      image: get("image"),
      base: get("base"),
      sizeBytes: Number(get("size-bytes")),
      baseSizeBytes: Number(get("base-size-bytes")),
      layers: Number(get("layers")),
      baseLayers: Number(get("base-layers")),
      user: get("user"),
      buildSeconds: Number(get("build-seconds")),
      env: { CONTAINERS_CONF: get("containers-conf"), CONTAINERS_STORAGE_CONF: get("storage-conf") },
    };
  })();
  return built;
}

/** `podman ARGS` against the image's storage; `stdin` is written to the command's standard input. */
export function podman(image: BuiltImage, args: readonly string[], options: { stdin?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  const env = { PATH: process.env.PATH ?? "", ...image.env };
  return runToCompletion("podman", args, { cwd: "/", env, timeoutMs: options.timeoutMs ?? 120_000, ...(options.stdin !== undefined && { stdin: options.stdin }) });
}

/** What a kubelet gives a pod besides its spec: its name, the API server's address and the token. */
export interface PodContext {
  /** The pod's name (metadata.name: the container's name here too). */
  name: string;
  namespace: string;
  /** KUBERNETES_SERVICE_HOST and _PORT: the API server as the pod reaches it. */
  apiServer: { host: string; port: string };
  /** The ServiceAccount's token (a TokenRequest's) and the cluster's CA certificate. */
  serviceAccount: { token: string; caCertificate: string };
  /** The rendered and created ConfigMaps and Secrets the pod's volumes and env name. */
  objects: readonly KubernetesObject[];
  /** Where the volumes' files are written on this machine. */
  dir: string;
}

const quantitySuffixes: Record<string, number> = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** A Kubernetes memory quantity (`512Mi`, `1G`, `268435456`) in bytes. */
function quantityBytes(quantity: string): number {
  const match = /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity);
  if (match === null) throw new ImageError(`memory quantity ${quantity}: not one this harness reads`);
  return Math.ceil(Number(match[1]) * quantitySuffixes[match[2] ?? ""]!);
}

/** Where client libraries read the pod's ServiceAccount token, CA and namespace. */
const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

function find<T extends KubernetesObject>(objects: readonly KubernetesObject[], kind: string, name: string): T {
  const object = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (object === undefined) throw new ImageError(`the pod names ${kind} ${name}, which is neither rendered nor created`);
  return object as T;
}

function secretData(secret: V1Secret, key: string): string {
  const value = secret.stringData?.[key] ?? (secret.data?.[key] !== undefined ? Buffer.from(secret.data[key], "base64").toString("utf8") : undefined);
  if (value === undefined) throw new ImageError(`Secret ${secret.metadata?.name} has no key ${key}`);
  return value;
}

function configMapData(configMap: V1ConfigMap, key: string): string {
  const value = configMap.data?.[key];
  if (value === undefined) throw new ImageError(`ConfigMap ${configMap.metadata?.name} has no key ${key}`);
  return value;
}

/** An env var's value as the kubelet resolves it, `$(NAME)` of an earlier variable expanded. */
function envValue(variable: V1EnvVar, context: PodContext, earlier: Map<string, string>): string {
  const from = variable.valueFrom;
  if (from?.fieldRef !== undefined) {
    const fields: Record<string, string> = { "metadata.name": context.name, "metadata.namespace": context.namespace };
    const value = fields[from.fieldRef.fieldPath];
    if (value === undefined) throw new ImageError(`env ${variable.name}: fieldRef ${from.fieldRef.fieldPath} is not one this harness gives`);
    return value;
  }
  if (from?.configMapKeyRef !== undefined) return configMapData(find(context.objects, "ConfigMap", from.configMapKeyRef.name ?? ""), from.configMapKeyRef.key);
  if (from?.secretKeyRef !== undefined) return secretData(find(context.objects, "Secret", from.secretKeyRef.name ?? ""), from.secretKeyRef.key);
  if (from !== undefined) throw new ImageError(`env ${variable.name}: valueFrom ${JSON.stringify(from)} is not one this harness gives`);
  return (variable.value ?? "").replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => earlier.get(name) ?? whole);
}

/** Writes one volume's files as the kubelet projects them: mode, group the pod's fsGroup. */
function writeVolume(dir: string, files: { path: string; text: string; mode: number }[], fsGroup: number | undefined): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  for (const file of files) {
    const path = join(dir, file.path);
    writeFileSync(path, file.text, { mode: file.mode });
    if (fsGroup !== undefined) chownSync(path, 0, fsGroup);
  }
}

/**
 * `podman run` arguments (before the image) and the arguments after it for `container` of `pod`:
 * every field of the spec the service's container reads is translated, and a field this harness
 * cannot translate throws rather than being dropped. The pod's network is the host's (the API
 * server and NATS listen on loopback here).
 */
export function podmanRunArgs(pod: V1PodSpec, container: V1Container, context: PodContext): { options: string[]; args: string[] } {
  const podSecurity = pod.securityContext ?? {};
  const security = container.securityContext ?? {};
  const user = security.runAsUser ?? podSecurity.runAsUser;
  const group = security.runAsGroup ?? podSecurity.runAsGroup;
  const fsGroup = podSecurity.fsGroup ?? undefined;
  if (user === undefined || group === undefined) throw new ImageError("the pod names no runAsUser and runAsGroup: the harness runs what the spec says, not the image's default");
  const options = ["--name", context.name, "--network", "host", "--user", `${user}:${group}`];
  // The kubelet adds fsGroup to the container's groups and gives the volumes' files that group.
  if (fsGroup !== undefined) options.push("--group-add", String(fsGroup));
  // A read-only root with nothing writable but the pod's volumes: podman's own tmpfs on /tmp,
  // /var/tmp and /run (--read-only-tmpfs, its default) is no part of a Kubernetes pod.
  if (security.readOnlyRootFilesystem === true) options.push("--read-only", "--read-only-tmpfs=false");
  for (const capability of security.capabilities?.drop ?? []) options.push("--cap-drop", capability);
  for (const capability of security.capabilities?.add ?? []) options.push("--cap-add", capability);
  if (security.allowPrivilegeEscalation === false) options.push("--security-opt", "no-new-privileges");
  if (security.privileged === true) options.push("--privileged");
  // seccompProfile RuntimeDefault is podman's default profile: nothing to add.
  // The memory limit on the container's cgroup, as the kubelet sets it, and no swap beside it (a
  // kubelet's default): past it the kernel kills the container. The CPU limit is not applied.
  const memory = container.resources?.limits?.memory;
  if (memory !== undefined) {
    const bytes = `${quantityBytes(String(memory))}b`;
    options.push("--memory", bytes, "--memory-swap", bytes);
  }

  const env = new Map<string, string>([
    ["KUBERNETES_SERVICE_HOST", context.apiServer.host],
    ["KUBERNETES_SERVICE_PORT", context.apiServer.port],
  ]);
  for (const variable of container.env ?? []) env.set(variable.name, envValue(variable, context, env));
  if ((container.envFrom ?? []).length > 0) throw new ImageError("envFrom is not translated by this harness");
  for (const [name, value] of env) options.push("--env", `${name}=${value}`);

  if (pod.automountServiceAccountToken !== false) {
    const dir = join(context.dir, context.name, "serviceaccount");
    writeVolume(
      dir,
      [
        { path: "token", text: context.serviceAccount.token, mode: 0o644 },
        { path: "ca.crt", text: context.serviceAccount.caCertificate, mode: 0o644 },
        { path: "namespace", text: context.namespace, mode: 0o644 },
      ],
      fsGroup,
    );
    options.push("--volume", `${dir}:${SERVICE_ACCOUNT_DIR}:ro`);
  }
  for (const mount of container.volumeMounts ?? []) {
    const volume = (pod.volumes ?? []).find((v) => v.name === mount.name);
    if (volume === undefined) throw new ImageError(`volumeMount ${mount.name} names no volume`);
    const dir = join(context.dir, context.name, "volumes", volume.name);
    if (volume.emptyDir !== undefined) {
      options.push("--tmpfs", `${mount.mountPath}:rw,mode=1777`);
      continue;
    }
    const source = volume.secret ?? volume.configMap;
    if (source === undefined) throw new ImageError(`volume ${volume.name}: only Secret, ConfigMap and emptyDir volumes are translated`);
    const keys = source.items ?? [];
    const object =
      volume.secret !== undefined
        ? find<V1Secret>(context.objects, "Secret", volume.secret.secretName ?? "")
        : find<V1ConfigMap>(context.objects, "ConfigMap", volume.configMap?.name ?? "");
    const read = (key: string) => (volume.secret !== undefined ? secretData(object as V1Secret, key) : configMapData(object as V1ConfigMap, key));
    const items = keys.length > 0 ? keys : Object.keys({ ...(object as V1ConfigMap).data, ...(object as V1Secret).stringData }).map((key) => ({ key, path: key, mode: undefined }));
    writeVolume(
      dir,
      items.map((item) => ({ path: item.path, text: read(item.key), mode: item.mode ?? source.defaultMode ?? 0o644 })),
      fsGroup,
    );
    options.push("--volume", `${dir}:${mount.mountPath}${mount.readOnly === true ? ":ro" : ""}`);
  }
  if (container.command !== undefined) options.push("--entrypoint", JSON.stringify(container.command));
  return { options, args: container.args ?? [] };
}
