// KubeTransport over HTTP with a KubeConfig's credentials and TLS settings.
//
// client-node's own Watch parses every line into a full object and keeps a 30 s inactivity
// timer of its own; its generated API clients cannot ask for PartialObjectMetadata. So requests
// are made here with undici's fetch (the HTTP stack client-node 2.x itself uses), authenticated
// by `KubeConfig.applySecurityAuthentication`, and the caller strips each object as it arrives.
//
// Requests go through one connection pool per transport (connectionPool.ts): a watch the server
// ended is resumed on the connection it ended on, without a new TCP and TLS handshake, and an
// aborted watch's socket is destroyed with it, never left behind (client-node 1.x leaked one per
// watch, #2893).
import { HttpMethod, RequestContext, type KubeConfig } from "@kubernetes/client-node";
import { Observable, type Subscriber } from "rxjs";
import type { Readable } from "node:stream";
import { fetch, request, type Dispatcher as UndiciDispatcher, type Response } from "undici";
import { ConnectionPool, type Dispatcher } from "./connectionPool.js";
import { parseWatchLine } from "./managedFieldsCut.js";
import { ListBodySplitter } from "./listBody.js";
import { defaultSlicing } from "./slicedQueue.js";
import { KubeRequestError, statusError, type KubeRequest, type KubeTransport, type ListPart } from "./transport.js";

export function kubeHttpTransport(kubeConfig: KubeConfig): KubeTransport {
  const pool = new ConnectionPool(kubeConfig);
  return {
    getJson: (request) =>
      exchange(pool, request, viaFetch, async (response, subscriber) => {
        subscriber.next(parseJson(await response.text(), request.path));
      }),
    list: (request) => exchange(pool, request, viaFetch, (response, subscriber) => readList(response, subscriber, request.path)) as Observable<ListPart>,
    watch: (request) => exchange(pool, request, viaRequest, (body, subscriber) => readLines(body, subscriber, request.path)),
  };
}

/** One text body (a container log), then completion; errors as getJson's. Unsubscribing aborts it. */
export function kubeGetText(pool: ConnectionPool, request: KubeRequest): Observable<string> {
  return exchange(pool, request, viaFetch, async (response, subscriber) => {
    subscriber.next(await response.text());
  }) as Observable<string>;
}

/** A request as the kubeconfig says it is sent: its URL, its headers with the credentials, its connection pool. */
interface Prepared {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher;
  readonly signal: AbortSignal;
}

/** An answer whose status is known and whose body is still to be read. */
interface Answer<Body> {
  readonly status: number;
  readonly body: Body;
  text(): Promise<string>;
}

// Lists, gets and logs through fetch: it asks for gzip, which the API server applies to large
// lists, and a 500-pod page is 3.4 MB uncompressed (the local CLI lists a remote cluster).
async function viaFetch({ url, headers, dispatcher, signal }: Prepared): Promise<Answer<Response>> {
  const response = await fetch(url, { method: "GET", headers, signal, ...(dispatcher ? { dispatcher } : {}) });
  return { status: response.status, body: response, text: () => response.text() };
}

// Watches through undici's request: its body is a Node stream handing each chunk to a 'data'
// listener synchronously, where fetch's web stream costs a chain of promises per chunk, and the
// API server flushes every watch event on its own, so that is a cost per event
// (bench/watch-floor). It asks for no compression: the API server writes watch bodies
// uncompressed anyway (k8s.io/apiserver, handlers/watch.go).
async function viaRequest({ url, headers, dispatcher, signal }: Prepared): Promise<Answer<UndiciDispatcher.ResponseData["body"]>> {
  const { statusCode, body } = await request(url, { method: "GET", headers, signal, ...(dispatcher ? { dispatcher } : {}) });
  return { status: statusCode, body, text: () => body.text() };
}

function exchange<Body>(
  pool: ConnectionPool,
  request: KubeRequest,
  send: (prepared: Prepared) => Promise<Answer<Body>>,
  readBody: (body: Body, subscriber: Subscriber<unknown>) => Promise<void>,
): Observable<unknown> {
  return new Observable<unknown>((subscriber) => {
    const controller = new AbortController();
    const run = async () => {
      const context = new RequestContext(requestUrl(pool.kubeConfig, request), HttpMethod.GET);
      context.setHeaderParam("Accept", request.accept ?? "application/json");
      await pool.kubeConfig.applySecurityAuthentication(context);
      const dispatcher = await pool.dispatcherFor(context.getDispatcher());
      const answer = await send({ url: context.getUrl(), headers: context.getHeaders(), dispatcher, signal: controller.signal });
      if (answer.status < 200 || answer.status > 299) {
        const text = await answer.text();
        throw statusError(tryParseJson(text), `GET ${request.path}`, answer.status);
      }
      await readBody(answer.body, subscriber);
      subscriber.complete();
    };
    run().catch((error: unknown) => {
      if (controller.signal.aborted) return; // unsubscribed: nobody is listening any more
      subscriber.error(
        error instanceof KubeRequestError ? error : new KubeRequestError(`GET ${request.path}: ${describe(error)}`, { cause: error }),
      );
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

/**
 * What a watch body's reading may take of one turn of the event loop. A socket read hands over up
 * to 64 KB, and libuv reads a busy socket up to 32 times in one go: 2 MB of pod updates is 300
 * events, each parsed, cached and judged, some 100 ms in one turn while the API server writes as
 * fast as it can (bench/scale-curve's churn). Past this, the body is paused and read on in the next
 * turn: timers, NATS and the other watches run between. The sliced queue's slice (slicedQueue.ts).
 */
const watchReadBudgetMs = defaultSlicing.budgetMs;

/** Whether this turn of the event loop has spent `budgetMs` reading; a turn starts at its first question. */
class TurnBudget {
  private readonly budgetMs: number;
  private startedAt: number | undefined;

  constructor(budgetMs: number) {
    this.budgetMs = budgetMs;
  }

  spent(): boolean {
    const now = performance.now();
    if (this.startedAt === undefined) {
      this.startedAt = now;
      setImmediate(() => (this.startedAt = undefined));
    }
    return now - this.startedAt >= this.budgetMs;
  }
}

/** Each line of a watch body, parsed, to the subscriber, chunk by chunk as the stream hands them over, at most `watchReadBudgetMs` a turn. */
function readLines(body: Readable, subscriber: Subscriber<unknown>, path: string): Promise<void> {
  const budget = new TurnBudget(watchReadBudgetMs);
  const hand = (line: Buffer): void => {
    let value: unknown;
    try {
      value = parseWatchLine(line);
    } catch (error) {
      throw new KubeRequestError(`GET ${path}: the answer is not JSON`, { cause: error });
    }
    if (value !== undefined) subscriber.next(value);
  };
  const onLine = (line: Buffer): boolean => {
    hand(line);
    return !subscriber.closed && !budget.spent();
  };
  const lines = new LineSplitter();
  return new Promise<void>((resolve, reject) => {
    let ended = false;
    /** Lines wait for the next turn: the body is paused until they are read. */
    let waiting = false;
    const fail = (error: unknown) => {
      body.destroy();
      reject(error);
    };
    const finish = () => {
      const last = lines.end();
      if (last !== undefined && !subscriber.closed) hand(last);
      resolve();
    };
    // A push or resume stopped: the subscriber left (nothing more is read), or the turn's budget is spent.
    const stopped = () => {
      if (subscriber.closed) {
        body.destroy();
        resolve();
        return;
      }
      waiting = true;
      body.pause();
      setImmediate(() => {
        try {
          waiting = false;
          if (subscriber.closed || !lines.resume(onLine)) stopped();
          else if (ended) finish();
          else body.resume();
        } catch (error) {
          fail(error);
        }
      });
    };
    body.on("data", (chunk: Buffer) => {
      try {
        if (!lines.push(chunk, onLine) && !waiting) stopped();
      } catch (error) {
        fail(error);
      }
    });
    // The stream may end while lines wait (its last chunk read, then paused): they are read first.
    body.once("end", () => {
      ended = true;
      if (waiting) return;
      try {
        finish();
      } catch (error) {
        fail(error);
      }
    });
    body.once("error", fail);
  });
}

/**
 * A list body's items, chunk by chunk as fetch hands them over (decompressed), then its envelope.
 * The loop is given back after each chunk: chunks that arrived while one was being read wait in
 * the stream and come out of it as promises, one after another in the same turn, and a 3.4 MB page
 * read that way holds the loop about as long as parsing it whole.
 */
async function readList(response: Response, subscriber: Subscriber<unknown>, path: string): Promise<void> {
  const splitter = new ListBodySplitter();
  const notJson = (error: unknown) => new KubeRequestError(`GET ${path}: the answer is not JSON`, { cause: error });
  for await (const chunk of response.body ?? []) {
    const items: unknown[] = [];
    try {
      splitter.push(chunk, (item) => items.push(item));
    } catch (error) {
      throw notJson(error);
    }
    if (items.length > 0) subscriber.next({ items } satisfies ListPart);
    if (subscriber.closed) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const rest: unknown[] = [];
  let envelope: unknown;
  try {
    envelope = splitter.end((item) => rest.push(item));
  } catch (error) {
    throw notJson(error);
  }
  if (rest.length > 0) subscriber.next({ items: rest } satisfies ListPart);
  subscriber.next({ envelope } satisfies ListPart);
}

const utf8Bom = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The lines of a newline-delimited body, as bytes: the line's managedFields is cut before it is
 * decoded (managedFieldsCut.ts). One watch event may span many chunks (a pod with a large status
 * is several KB), so a partial line waits for its newline; a newline byte never occurs inside a
 * multi-byte UTF-8 character, so lines split on bytes decode as the whole body would. A byte order
 * mark opening the body is dropped, as a TextDecoder of the body drops it.
 *
 * Synchronous within a chunk: the lines one chunk carries are handed over one after another with
 * no promise between them. An async generator's `yield` per line cost a promise, a microtask and
 * an iterator result for every watch event, and a microtask checkpoint between two events, where
 * the NATS client flushes what was published so far: one socket write per event at most.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  /** What followed the line at which `onLine` said stop, to be read by `resume`. */
  private backlog: Buffer[] = [];
  private first = true;

  /**
   * Hands each line `chunk` completes to `onLine`, in order, until it returns false: then false,
   * and the rest of the chunk is kept for `resume`. Pushed while something is kept, the chunk is
   * kept behind it (false).
   */
  push(chunk: Uint8Array, onLine: (line: Buffer) => boolean): boolean {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.backlog.length > 0) {
      this.backlog.push(Buffer.from(bytes));
      return false;
    }
    let start = 0;
    let newline = bytes.indexOf(0x0a, start);
    while (newline >= 0) {
      const piece = bytes.subarray(start, newline);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      start = newline + 1;
      if (!onLine(this.opened(line))) {
        // Copied, as a partial line below: the stream may hand the chunk's memory out again.
        if (start < bytes.length) this.backlog.push(Buffer.from(bytes.subarray(start)));
        return false;
      }
      newline = bytes.indexOf(0x0a, start);
    }
    // Copied: a partial line outlives its chunk, whose memory the stream may hand out again.
    if (start < bytes.length) this.pending.push(Buffer.from(bytes.subarray(start)));
    return true;
  }

  /** Reads on what a stopped `push` kept, as `push` reads (false: stopped again, the rest kept). */
  resume(onLine: (line: Buffer) => boolean): boolean {
    const kept = this.backlog;
    this.backlog = [];
    for (const [k, chunk] of kept.entries()) {
      if (!this.push(chunk, onLine)) {
        this.backlog.push(...kept.slice(k + 1));
        return false;
      }
    }
    return true;
  }

  /** The body's last line when it did not end with a newline (after `resume` read everything kept). */
  end(): Buffer | undefined {
    if (this.pending.length === 0) return undefined;
    const line = Buffer.concat(this.pending);
    this.pending = [];
    return this.opened(line);
  }

  private opened(line: Buffer): Buffer {
    if (!this.first) return line;
    this.first = false;
    return line.subarray(0, 3).equals(utf8Bom) ? line.subarray(3) : line;
  }
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
