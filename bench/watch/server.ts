// A stand-in API server for the watch-throughput benchmark, run in its own process (pinned to
// another core than the benchmark when taskset exists) so serving costs the measured process
// nothing. It answers paged lists of Deployments, ReplicaSets and pods at resourceVersion 1, and
// a pod watch from resourceVersion 1 with the chunked body of `passes` updates of every pod,
// written as fast as the socket drains. Any other watch stays open and silent until the client
// goes. The pod watch waits for `GET /go?stream=changing|resent` (which answers once a watch
// waits), so the benchmark starts the stream, and picks it, when everything it measures is set up.
// `stream=rollout` streams the Deployment watch instead (deploymentRolloutLines: ready counts going
// up, then every rollout complete), for bench/bus-ops. With `scale` in its size the pod and
// Deployment watches are held for the phases of bench/scale-curve instead (scalePhases.ts, started
// by `GET /scale?phase=...`, the last of which ends the pod watch with 410 Gone), and none of the streams above is built: at 200,000 pods each would be
// a string past V8's longest. Prints the port on stdout once listening.
import { createServer, type ServerResponse } from "node:http";
import { deploymentRolloutLines, podWatchLines, watchCluster } from "./cluster.ts";
import { ScalePhases, type ScalePhasesOptions } from "./scalePhases.ts";

const size = JSON.parse(process.argv[2] ?? "{}") as { deployments: number; podsPerDeployment: number; passes: number; scale?: ScalePhasesOptions };
const cluster = watchCluster(size);
const scale = size.scale && new ScalePhases(cluster, size, size.scale);
// Two streams of `passes` passes over every pod: each update changing the pod (its container's
// restartCount goes up, at a new resourceVersion), or the same pod re-sent at resourceVersion 2.
const streams: Record<string, Buffer[]> = {};
if (!scale) {
  streams["changing"] = Array.from({ length: size.passes }, (_, pass) => Buffer.from(`${podWatchLines(cluster, String(2 + pass), pass + 1).join("\n")}\n`));
  streams["resent"] = Array.from({ length: size.passes }, () => Buffer.from(`${podWatchLines(cluster, "2").join("\n")}\n`));
  const rollout = deploymentRolloutLines(size);
  streams["rollout"] = [Buffer.from(`${rollout.rollingOut.join("\n")}\n`), Buffer.from(`${rollout.rolledOut.join("\n")}\n`)];
}
/** Which watch each stream is written to. */
const streamPath = (name: string) => (name === "rollout" ? "/apis/apps/v1/deployments" : "/api/v1/pods");
const items: Record<string, string[]> = {
  "/apis/apps/v1/deployments": cluster.deployments.map((object) => JSON.stringify(object)),
  "/apis/apps/v1/replicasets": cluster.replicaSets.map((object) => JSON.stringify(object)),
  "/api/v1/pods": cluster.podJson,
};
// Written in slices about the size of the API server's own flushes.
const chunkBytes = 64 * 1024;

function list(response: ServerResponse, objects: string[], url: URL): void {
  const limit = Number(url.searchParams.get("limit") ?? objects.length);
  const from = Number(url.searchParams.get("continue") ?? 0);
  const next = from + limit < objects.length ? String(from + limit) : undefined;
  const resourceVersion = scale?.listVersion(url.pathname) ?? "1";
  const metadata = JSON.stringify({ resourceVersion, ...(next && { continue: next }) });
  let page = objects.slice(from, from + limit);
  if (resourceVersion !== "1") page = page.map((json) => json.replace('"resourceVersion":"1"', `"resourceVersion":"${resourceVersion}"`));
  response.writeHead(200, { "content-type": "application/json" });
  response.end(`{"kind":"List","apiVersion":"v1","metadata":${metadata},"items":[${page.join(",")}]}`);
}

async function stream(response: ServerResponse, passes: readonly Buffer[]): Promise<void> {
  let open = true;
  let drained: (() => void) | undefined;
  response.on("drain", () => drained?.());
  response.on("close", () => {
    open = false;
    drained?.();
  });
  for (const pass of passes) {
    if (!open) break;
    for (let offset = 0; offset < pass.length && open; offset += chunkBytes) {
      if (!response.write(pass.subarray(offset, offset + chunkBytes))) {
        await new Promise<void>((resolve) => (drained = resolve));
        drained = undefined;
      }
    }
  }
  if (open) response.end();
}

const waitingWatches = new Map<string, ServerResponse>();
let waitingGo: ServerResponse | undefined;
let waitingStream = "changing";

function release(): void {
  const watch = waitingWatches.get(streamPath(waitingStream));
  if (!watch || !waitingGo) return;
  waitingGo.end("{}");
  waitingGo = undefined;
  waitingWatches.delete(streamPath(waitingStream));
  void stream(watch, streams[waitingStream]!);
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://localhost");
  if (url.pathname === "/scale" && scale) {
    scale.run(url).then(
      (result) => response.end(JSON.stringify(result)),
      (error: unknown) => response.writeHead(409).end(String(error)),
    );
    return;
  }
  if (url.pathname === "/go") {
    const chosen = url.searchParams.get("stream") ?? "changing";
    if (!streams[chosen]) {
      response.writeHead(400).end();
      return;
    }
    waitingGo = response;
    waitingStream = chosen;
    return release();
  }
  const objects = items[url.pathname];
  if (!objects) {
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ kind: "Status", code: 404, reason: "NotFound", message: `${url.pathname} not served` }));
    return;
  }
  if (url.searchParams.get("watch") !== "true") return list(response, objects, url);
  response.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
  response.flushHeaders();
  if (url.searchParams.get("resourceVersion") === "1" && scale?.hold(url.pathname, response)) return;
  if ((url.pathname === "/api/v1/pods" || url.pathname === "/apis/apps/v1/deployments") && url.searchParams.get("resourceVersion") === "1") {
    waitingWatches.set(url.pathname, response);
    response.on("close", () => {
      if (waitingWatches.get(url.pathname) === response) waitingWatches.delete(url.pathname);
    });
    return release();
  }
});
// Idle connections are never closed by the server: Node closes them after 5 s by default, and a
// benchmark's next /go reused its pooled connection just as it went ("fetch failed: other side closed").
server.keepAliveTimeout = 0;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(typeof address === "object" && address ? address.port : "");
});
