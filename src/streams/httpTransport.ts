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
  for await (const line of splitLines(response.body)) {
    subscriber.next(parseJson(line, path));
    if (subscriber.closed) return;
  }
}

/**
 * The non-blank lines of a newline-delimited body. One watch event may span many chunks (a pod
 * with a large status is several KB) and a chunk may end inside a multi-byte character, so
 * decoding is streaming and partial lines wait for their newline.
 */
export async function* splitLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending: string[] = [];
  for await (const chunk of chunks) {
    let text = decoder.decode(chunk, { stream: true });
    let newline = text.indexOf("\n");
    while (newline >= 0) {
      pending.push(text.slice(0, newline));
      const line = pending.join("");
      pending = [];
      if (line.trim() !== "") yield line;
      text = text.slice(newline + 1);
      newline = text.indexOf("\n");
    }
    if (text !== "") pending.push(text);
  }
  const last = pending.join("") + decoder.decode();
  if (last.trim() !== "") yield last;
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
