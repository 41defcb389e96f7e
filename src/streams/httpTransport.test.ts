// The HTTP transport against a local HTTP server standing in for the API server's wire format:
// newline-delimited watch bodies split at arbitrary points, Status error bodies, aborts.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { firstValueFrom, lastValueFrom, tap, toArray } from "rxjs";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { LineSplitter, kubeHttpTransport } from "./httpTransport.js";
import { KubeRequestError } from "./transport.js";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(handler: Handler): Promise<KubeConfig> {
  const server = createServer(handler);
  servers.push({ close: () => server.close() });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "local", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: "tester", token: "s3cr3t-token" }],
    contexts: [{ name: "local", cluster: "local", user: "tester" }],
    currentContext: "local",
  });
  return kubeConfig;
}

/** A count of the event loop's turns (setImmediate runs once per turn, after I/O), until stopped. */
function countTurns(): { now(): number; stop(): void } {
  let turn = 0;
  let counting = true;
  const next = () => {
    turn += 1;
    if (counting) setImmediate(next);
  };
  next();
  return { now: () => turn, stop: () => (counting = false) };
}

describe("kubeHttpTransport", () => {
  it("sends the path, query, Accept header and the kubeconfig's credentials", async () => {
    let seen: { url?: string; accept?: string; authorization?: string } = {};
    const kubeConfig = await serve((request, response) => {
      seen = { url: request.url, accept: request.headers.accept, authorization: request.headers.authorization };
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ kind: "PartialObjectMetadataList", metadata: { resourceVersion: "7" }, items: [] }));
    });
    const body = await firstValueFrom(
      kubeHttpTransport(kubeConfig).getJson({
        path: "/api/v1/namespaces/payments/secrets",
        query: { limit: 500, continue: undefined },
        accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
      }),
    );
    expect(body).toEqual({ kind: "PartialObjectMetadataList", metadata: { resourceVersion: "7" }, items: [] });
    expect(seen).toEqual({
      url: "/api/v1/namespaces/payments/secrets?limit=500",
      accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
      authorization: "Bearer s3cr3t-token",
    });
  });

  it("emits one value per watch line and completes when the server ends the response", async () => {
    const lines = [
      { type: "ADDED", object: { metadata: { name: "a", uid: "1", resourceVersion: "10" } } },
      { type: "BOOKMARK", object: { metadata: { resourceVersion: "11" } } },
    ];
    const kubeConfig = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    });
    const received = await lastValueFrom(kubeHttpTransport(kubeConfig).watch({ path: "/api/v1/pods", query: { watch: true } }).pipe(toArray()));
    expect(received).toEqual(lines);
  });

  it.each(["gzip", "identity"])("hands a list's items over as its %s body arrives, a turn of the loop between two chunks, then the envelope", async (encoding) => {
    const pod = JSON.parse(readFileSync(new URL("fixtures/pod-running.json", import.meta.url), "utf8")) as { metadata: Record<string, unknown> };
    const pods = Array.from({ length: 40 }, (_, k) => ({ ...pod, metadata: { ...pod.metadata, name: `web-${k}` } }));
    const json = Buffer.from(JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "912", continue: "next" }, items: pods }));
    const body = encoding === "gzip" ? gzipSync(json) : json;
    let acceptEncoding: string | undefined;
    const kubeConfig = await serve((request, response) => {
      acceptEncoding = request.headers["accept-encoding"];
      response.writeHead(200, { "content-type": "application/json", "content-encoding": encoding });
      // In pieces, as a large page comes over the network.
      for (let at = 0; at < body.length; at += 4096) response.write(body.subarray(at, at + 4096));
      response.end();
    });
    // The first part's subscriber holds the loop long enough for the rest of the body to arrive: a
    // transport that read what had arrived in one go (or the body whole) would hand the rest over
    // in one turn.
    const turns = countTurns();
    const ticks: number[] = [];
    const parts = await lastValueFrom(
      kubeHttpTransport(kubeConfig)
        .list({ path: "/api/v1/pods", query: { limit: 500 } })
        .pipe(
          tap(() => {
            if (ticks.length === 0) {
              const until = performance.now() + 200;
              while (performance.now() < until);
            }
            ticks.push(turns.now());
          }),
          toArray(),
        ),
    ).finally(() => turns.stop());
    expect(acceptEncoding).toContain("gzip");
    const items = parts.flatMap((part) => ("items" in part ? part.items : []));
    expect(items.map((item) => (item as { metadata: { name: string } }).metadata.name)).toEqual(pods.map((p) => p.metadata.name));
    expect(items[0]).not.toHaveProperty("metadata.managedFields");
    expect(items[0]).toHaveProperty("status.containerStatuses");
    expect(parts.at(-1)).toEqual({ envelope: { kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "912", continue: "next" }, items: [] } });
    // Several parts, each in a turn of its own: the page was never read in one step.
    expect(parts.length).toBeGreaterThan(2);
    for (let k = 1; k < ticks.length - 1; k++) expect(ticks[k], `part ${k}`).toBeGreaterThan(ticks[k - 1]!);
  });

  it("fails a list whose body is not JSON, naming the path", async () => {
    const kubeConfig = await serve((_request, response) => {
      response.setHeader("content-type", "application/json");
      response.end('{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{}} {"metadata":{}}]}');
    });
    const error = await lastValueFrom(kubeHttpTransport(kubeConfig).list({ path: "/api/v1/pods" }).pipe(toArray())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeRequestError);
    expect((error as Error).message).toBe("GET /api/v1/pods: the answer is not JSON");
  });

  it("reads a watch body that arrived all at once over several turns of the loop, every line in order", async () => {
    const lines = Array.from({ length: 200 }, (_, k) => ({ type: "MODIFIED", object: { metadata: { name: `web-${k}`, resourceVersion: String(100 + k) } } }));
    const kubeConfig = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    });
    const loop = countTurns();
    const seen: { name: string; tick: number }[] = [];
    await lastValueFrom(
      kubeHttpTransport(kubeConfig)
        .watch({ path: "/api/v1/pods", query: { watch: true } })
        .pipe(
          tap((event) => {
            // Each event costs its subscriber 0.5 ms: 200 of them are 100 ms of work.
            const until = performance.now() + 0.5;
            while (performance.now() < until);
            seen.push({ name: (event as (typeof lines)[number]).object.metadata.name, tick: loop.now() });
          }),
          toArray(),
        ),
    ).finally(() => loop.stop());
    expect(seen.map((event) => event.name)).toEqual(lines.map((line) => line.object.metadata.name));
    // At most the read budget (5 ms, some 10 events) a turn: the 200 events took many turns.
    const turns = new Set(seen.map((event) => event.tick));
    expect(turns.size).toBeGreaterThanOrEqual(10);
    const perTurn = Math.max(...[...turns].map((t) => seen.filter((event) => event.tick === t).length));
    expect(perTurn).toBeLessThan(50);
  });

  it("fails with the Status the server answered", async () => {
    const kubeConfig = await serve((_request, response) => {
      response.writeHead(410, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: "too old resource version: 5 (90)", reason: "Expired", code: 410 }),
      );
    });
    const error = await firstValueFrom(kubeHttpTransport(kubeConfig).watch({ path: "/api/v1/pods" })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KubeRequestError);
    expect(error).toMatchObject({ status: 410, reason: "Expired" });
    expect((error as Error).message).toContain("too old resource version");
  });

  it("fails with a KubeRequestError keeping the cause when nothing answers", async () => {
    const kubeConfig = await serve((request) => request.socket.destroy());
    const error = await firstValueFrom(kubeHttpTransport(kubeConfig).getJson({ path: "/api/v1" })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KubeRequestError);
    expect((error as KubeRequestError).status).toBeUndefined();
    expect((error as KubeRequestError).cause).toBeDefined();
  });

  it("resumes a watch on the connection the one before ended on, and opens another when the TLS settings change", async () => {
    const sockets = new Set<Socket>();
    const kubeConfig = await serve((request, response) => {
      sockets.add(request.socket);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(`${JSON.stringify({ type: "BOOKMARK", object: { metadata: { resourceVersion: "1" } } })}\n`);
    });
    const transport = kubeHttpTransport(kubeConfig);
    // As the reflector resumes a watch: in a task of its own after the last one ended (undici takes
    // a connection back into its pool once the response's last callback has returned).
    const watchUntilEnded = async () => {
      await lastValueFrom(transport.watch({ path: "/api/v1/pods", query: { watch: true } }).pipe(toArray()));
      await new Promise((resolve) => setTimeout(resolve, 0));
    };
    await watchUntilEnded();
    await watchUntilEnded();
    await firstValueFrom(transport.getJson({ path: "/api/v1/pods" }));
    expect(sockets.size).toBe(1);
    // Another server name (or a renewed client certificate) is another pool: a connection of its own.
    const [cluster] = kubeConfig.clusters;
    kubeConfig.loadFromOptions({
      clusters: [{ ...cluster!, tlsServerName: "api.example" }],
      users: kubeConfig.users,
      contexts: kubeConfig.contexts,
      currentContext: kubeConfig.currentContext,
    });
    await watchUntilEnded();
    expect(sockets.size).toBe(2);
  });

  it("closes the connection when the subscriber unsubscribes", async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const kubeConfig = await serve((request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write(`${JSON.stringify({ type: "BOOKMARK", object: { metadata: { resourceVersion: "1" } } })}\n`);
      request.socket.on("close", () => closed());
    });
    const subscription = kubeHttpTransport(kubeConfig)
      .watch({ path: "/api/v1/pods", query: { watch: true } })
      .subscribe(() => subscription.unsubscribe());
    await connectionClosed;
    expect(subscription.closed).toBe(true);
  });
});

describe("LineSplitter", () => {
  function collect(chunks: readonly Uint8Array[]): string[] {
    const lines: string[] = [];
    const splitter = new LineSplitter();
    const onLine = (line: Buffer) => lines.push(line.toString("utf8")) > 0;
    for (const chunk of chunks) splitter.push(chunk, onLine);
    const last = splitter.end();
    if (last !== undefined) onLine(last);
    return lines;
  }

  const wire = Buffer.from('\ufeff{"type":"ADDED","n":1}\n{"type":"MODIFIED","message":"ü ✓"}\n\n{"type":"DELETED"}');
  const at = (...cuts: number[]) => {
    const bounds = [0, ...cuts, wire.length];
    return bounds.slice(1).map((end, i) => wire.subarray(bounds[i], end));
  };

  it.each([
    { name: "one chunk", chunks: at() },
    { name: "a cut inside the byte order mark", chunks: at(1) },
    { name: "a cut inside a JSON value", chunks: at(9) },
    { name: "a cut inside a multi-byte character", chunks: at(wire.indexOf("✓") + 1) },
    { name: "a cut right after a newline", chunks: at(wire.indexOf("\n") + 1) },
    { name: "one byte a chunk", chunks: [...wire].map((byte) => Uint8Array.of(byte)) },
  ])("yields whole lines, the body's byte order mark dropped, the last one without its newline: $name", ({ chunks }) => {
    expect(collect(chunks)).toEqual(['{"type":"ADDED","n":1}', '{"type":"MODIFIED","message":"ü ✓"}', "", '{"type":"DELETED"}']);
  });

  /**
   * What the transport read before lines were split on bytes: the whole body decoded (Node's
   * streaming TextDecoder drops a second byte order mark when the first is split across chunks,
   * which the WHATWG decoding it follows does not), blank lines skipped.
   */
  function decodedLines(chunks: readonly Uint8Array[]): string[] {
    return new TextDecoder()
      .decode(Buffer.concat(chunks))
      .split("\n")
      .filter((line) => line.trim() !== "");
  }

  it("reads any body, invalid UTF-8 included, as decoding the whole body and splitting it did", () => {
    const body = fc.array(fc.oneof(fc.constantFrom(..."\n\n{}\"ü✓😀\ufeff \t"), fc.string({ unit: "binary", maxLength: 3 })), { maxLength: 30 });
    const bytes = fc.tuple(body, fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 6 }));
    fc.assert(
      fc.property(bytes, ([parts, stray, cuts]) => {
        const wire = Buffer.concat([Buffer.from(parts.join("")), Uint8Array.from(stray)]);
        const bounds = [...new Set([0, ...cuts.map((cut) => cut % (wire.length + 1)), wire.length])].sort((a, b) => a - b);
        const chunks = bounds.slice(1).map((end, i) => wire.subarray(bounds[i], end));
        const lines = collect(chunks).filter((line) => line.trim() !== "");
        expect(lines).toEqual(decodedLines(chunks));
      }),
      { numRuns: 1_000 },
    );
  });

  it("stops at the line whose handler says so, hands over none after it, and reads on from there when resumed", () => {
    const splitter = new LineSplitter();
    const seen: string[] = [];
    const stopAfter = (count: number) => (line: Buffer) => seen.push(line.toString()) < count;
    expect(splitter.push(Buffer.from("a\nb\nc\nd"), stopAfter(2))).toBe(false);
    expect(seen).toEqual(["a", "b"]);
    // Pushed while stopped: kept behind what was kept, nothing read.
    expect(splitter.push(Buffer.from("e\nf\n"), stopAfter(99))).toBe(false);
    expect(seen).toEqual(["a", "b"]);
    expect(splitter.resume(stopAfter(4))).toBe(false);
    expect(seen).toEqual(["a", "b", "c", "de"]);
    expect(splitter.resume(stopAfter(99))).toBe(true);
    expect(seen).toEqual(["a", "b", "c", "de", "f"]);
    expect(splitter.end()).toBeUndefined();
  });
});
