// KubeTransport over HTTP with a KubeConfig's credentials and TLS settings.
//
// client-node's own Watch parses every line into a full object and keeps a 30 s inactivity
// timer of its own; its generated API clients cannot ask for PartialObjectMetadata. So requests
// are made here with undici's fetch (the HTTP stack client-node 2.x itself uses), authenticated
// by `KubeConfig.applySecurityAuthentication`, and the caller strips each object as it arrives.
//
// Each request gets the dispatcher (connection pool) the KubeConfig builds for it, and that
// dispatcher is destroyed when the request ends: one TLS connection per list or watch, never a
// socket left behind by an aborted watch (client-node 1.x leaked one per watch, #2893).
// Requests are rare (a watch lasts minutes), so the extra handshakes cost nothing measurable.
import { HttpMethod, RequestContext, type KubeConfig } from "@kubernetes/client-node";
import { Observable, type Subscriber } from "rxjs";
import { fetch, type Response } from "undici";
import { KubeRequestError, statusError, type KubeRequest, type KubeTransport } from "./transport.js";

export function kubeHttpTransport(kubeConfig: KubeConfig): KubeTransport {
  return {
    getJson: (request) =>
      exchange(kubeConfig, request, async (response, subscriber) => {
        subscriber.next(parseJson(await response.text(), request.path));
      }),
    watch: (request) => exchange(kubeConfig, request, (response, subscriber) => readLines(response, subscriber, request.path)),
  };
}

type Dispatcher = ReturnType<RequestContext["getDispatcher"]>;

function exchange(
  kubeConfig: KubeConfig,
  request: KubeRequest,
  readBody: (response: Response, subscriber: Subscriber<unknown>) => Promise<void>,
): Observable<unknown> {
  return new Observable<unknown>((subscriber) => {
    const controller = new AbortController();
    let dispatcher: Dispatcher;
    const run = async () => {
      const context = new RequestContext(requestUrl(kubeConfig, request), HttpMethod.GET);
      context.setHeaderParam("Accept", request.accept ?? "application/json");
      await kubeConfig.applySecurityAuthentication(context);
      dispatcher = context.getDispatcher();
      const response = await fetch(context.getUrl(), {
        method: "GET",
        headers: context.getHeaders(),
        signal: controller.signal,
        ...(dispatcher ? { dispatcher } : {}),
      });
      if (!response.ok) {
        const text = await response.text();
        throw statusError(tryParseJson(text), `GET ${request.path}`, response.status);
      }
      await readBody(response, subscriber);
      subscriber.complete();
    };
    run()
      .catch((error: unknown) => {
        if (controller.signal.aborted) return; // unsubscribed: nobody is listening any more
        subscriber.error(
          error instanceof KubeRequestError ? error : new KubeRequestError(`GET ${request.path}: ${describe(error)}`, { cause: error }),
        );
      })
      .finally(() => {
        void dispatcher?.destroy().catch(() => undefined);
      });
    return () => controller.abort();
  });
}

function requestUrl(kubeConfig: KubeConfig, request: KubeRequest): string {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) {
    throw new KubeRequestError("the kubeconfig has no current cluster");
  }
  const url = new URL(cluster.server.replace(/\/+$/, "") + request.path);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

async function readLines(response: Response, subscriber: Subscriber<unknown>, path: string): Promise<void> {
  if (!response.body) return;
  const lines = new LineSplitter();
  const emit = (line: string) => {
    if (!subscriber.closed) subscriber.next(parseJson(line, path));
  };
  for await (const chunk of response.body) {
    lines.push(chunk, emit);
    if (subscriber.closed) return;
  }
  lines.end(emit);
}

/**
 * The non-blank lines of a newline-delimited body, as its chunks arrive. One watch event may span
 * many chunks (a pod with a large status is several KB) and a chunk may end inside a multi-byte
 * character, so chunks are cut at newline bytes (0x0A is never part of a multi-byte UTF-8
 * sequence) and each line is decoded whole, once complete. Synchronous on purpose: a 64 KB chunk
 * holds about ten pod events, and handing each line on through an async iterator cost a promise
 * round trip per event. Decoding a line in one piece also gives JSON.parse one flat string
 * instead of slices and joins of the chunks' text.
 */
export class LineSplitter {
  /** The start of the line in progress, when it began in an earlier chunk. */
  private pending: Buffer[] = [];

  /** Hands `line` every line this chunk completes, in order. */
  push(chunk: Uint8Array, line: (text: string) => void): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    let newline = bytes.indexOf(0x0a);
    while (newline >= 0) {
      if (this.pending.length > 0) {
        this.pending.push(bytes.subarray(start, newline));
        emitLine(Buffer.concat(this.pending), 0, undefined, line);
        this.pending = [];
      } else {
        emitLine(bytes, start, newline, line);
      }
      start = newline + 1;
      newline = bytes.indexOf(0x0a, start);
    }
    // Copied: the transport may reuse the chunk's memory once this returns.
    if (start < bytes.length) this.pending.push(Buffer.from(bytes.subarray(start)));
  }

  /** The last line, when the body does not end with a newline. */
  end(line: (text: string) => void): void {
    if (this.pending.length > 0) emitLine(Buffer.concat(this.pending), 0, undefined, line);
    this.pending = [];
  }
}

function emitLine(bytes: Buffer, start: number, end: number | undefined, line: (text: string) => void): void {
  const text = bytes.toString("utf8", start, end);
  if (text.trim() !== "") line(text);
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new KubeRequestError(`GET ${path}: the answer is not JSON`, { cause: error });
  }
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // undici reports network failures as "fetch failed" and keeps the useful part in cause.
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
