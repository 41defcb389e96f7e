/**
 * Loopback networking for the harness: free ports, one small HTTP(S) client and a readiness wait.
 * Built on node:http(s) alone so the harness stays importable from compiled code without the
 * project's dependencies.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect as tcpConnect, createServer, type Server } from "node:net";

/**
 * `count` distinct free TCP ports on 127.0.0.1. All are held open until every one is known, so the
 * kernel cannot hand out the same port twice; another program may still take one before the
 * component binds it, which the readiness wait then reports.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", resolve);
      });
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no TCP address for a probe server");
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

export interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** PEM of the CA that signed the server's certificate. */
  ca?: string;
  /** Accept any certificate: for the self-signed health endpoints of local components only. */
  insecure?: boolean;
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export function http(url: string, options: HttpOptions = {}): Promise<HttpResponse> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: options.method ?? "GET",
        headers: options.headers,
        ca: options.ca,
        rejectUnauthorized: !options.insecure,
        timeout: options.timeoutMs ?? 5_000,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`timed out: ${options.method ?? "GET"} ${url}`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` (the connection is closed at once). */
export function tcpAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export class ReadinessError extends Error {
  override name = "ReadinessError";
}

/**
 * Polls `check` until it returns true. `abort` is consulted between polls and names a reason to
 * give up early (a component that exited); otherwise the wait ends with a ReadinessError after
 * `timeoutMs`, carrying the last error the check threw.
 */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; abort?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    const reason = options.abort?.();
    if (reason !== undefined) throw new ReadinessError(`${what}: ${reason}`);
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new ReadinessError(`${what}: not ready after ${options.timeoutMs / 1000}s${detail}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}
