// /metrics for Prometheus, /healthz (the process answers) and /readyz (informer caches synced and
// NATS connected): a replica that cannot see the cluster or the bus must not take requests.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { OpenMetricsContentType, Registry } from "prom-client";

export interface Readiness {
  /** Undefined when ready; otherwise what is missing, shown in the /readyz body. */
  notReadyBecause(): string | undefined;
}

export interface OperationsServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startOperationsServer(options: {
  host: string;
  port: number;
  registry: Registry;
  /** The same metrics in the OpenMetrics format (with exemplars), served to a scraper whose Accept asks for it. */
  openMetrics?: Registry<OpenMetricsContentType>;
  readiness: Readiness;
}): Promise<OperationsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    const reply = (status: number, body: string, contentType = "text/plain; charset=utf-8") => {
      response.writeHead(status, { "content-type": contentType }).end(body);
    };
    if (request.method !== "GET" && request.method !== "HEAD") return reply(405, "method not allowed\n");
    if (path === "/healthz") return reply(200, "ok\n");
    if (path === "/readyz") {
      const missing = options.readiness.notReadyBecause();
      return missing === undefined ? reply(200, "ok\n") : reply(503, `not ready: ${missing}\n`);
    }
    if (path === "/metrics") {
      const wantsOpenMetrics = (request.headers.accept ?? "").includes("application/openmetrics-text");
      const registry: Registry<OpenMetricsContentType> | Registry = wantsOpenMetrics && options.openMetrics ? options.openMetrics : options.registry;
      if (registry === options.registry) restoreCounterNames(registry);
      registry
        .metrics()
        .then((text) => reply(200, text, registry.contentType))
        .catch((error: unknown) => reply(500, `metrics failed: ${(error as Error).message}\n`));
      return;
    }
    reply(404, "not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The two registries share their metric objects, and prom-client's OpenMetrics rendering renames
 * each counter in place (`x_total` to `x`, its OpenMetrics family name): a Prometheus text scrape
 * after an OpenMetrics one would print counters without `_total`. Each text rendering puts the
 * suffix back first; prom-client reads the names synchronously as a rendering starts, so the two
 * renderings never see each other's names.
 */
function restoreCounterNames(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray() as unknown as { type?: string; name: string }[]) {
    if (metric.type === "counter" && !metric.name.endsWith("_total")) metric.name = `${metric.name}_total`;
  }
}
