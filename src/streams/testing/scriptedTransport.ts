// A test double of the HTTP layer, not of Kubernetes: tests script what the API server answers
// (list bodies, watch lines, failures) and the streams' own code does everything else. It
// answers synchronously, which also exercises the reflector's handling of sources that complete
// inside subscribe.
import { Observable, concatMap, defer, from, of, throwError, type Subscriber } from "rxjs";
import { KubeRequestError, type KubeRequest, type KubeTransport, type ListPart } from "../transport.js";

/** Answers a GET with a JSON body, or throws (a KubeRequestError) to fail it. */
export type GetHandler = (request: KubeRequest) => unknown;

export class ScriptedTransport implements KubeTransport {
  /** Every request made, in order. */
  readonly requests: KubeRequest[] = [];
  private readonly handlers = new Map<string, GetHandler>();
  private readonly opened: ScriptedWatch[] = [];

  /** Serves GET `path`; unknown paths answer 404 NotFound. */
  onGet(path: string, handler: GetHandler): this {
    this.handlers.set(path, handler);
    return this;
  }

  getJson(request: KubeRequest): Observable<unknown> {
    return defer(() => {
      this.requests.push(request);
      const handler = this.handlers.get(request.path);
      if (!handler) {
        return throwError(() => new KubeRequestError(`GET ${request.path}: 404 NotFound`, { status: 404, reason: "NotFound" }));
      }
      try {
        return of(handler(request));
      } catch (error) {
        return throwError(() => error);
      }
    });
  }

  /** The handler's body as the HTTP transport hands a list over: an item per part, then the envelope. */
  list(request: KubeRequest): Observable<ListPart> {
    return this.getJson(request).pipe(
      concatMap((body) => {
        const list = body as { items?: unknown } | null;
        if (typeof list !== "object" || list === null || !Array.isArray(list.items)) return of<ListPart>({ envelope: body });
        return from<ListPart[]>([...list.items.map((item) => ({ items: [item] })), { envelope: { ...list, items: [] } }]);
      }),
    );
  }

  watch(request: KubeRequest): Observable<unknown> {
    return new Observable<unknown>((subscriber) => {
      this.requests.push(request);
      const watch = new ScriptedWatch(request, subscriber);
      this.opened.push(watch);
      return () => watch.markClosed();
    });
  }

  /** Watches opened so far (on one path if given), oldest first. */
  watches(path?: string): ScriptedWatch[] {
    return this.opened.filter((watch) => path === undefined || watch.request.path === path);
  }

  /** The watches still open (on one path if given). */
  openWatches(path?: string): ScriptedWatch[] {
    return this.watches(path).filter((watch) => watch.open);
  }

  /** The one open watch (on one path if given); fails the test when there is not exactly one. */
  currentWatch(path?: string): ScriptedWatch {
    const open = this.openWatches(path);
    if (open.length !== 1) throw new Error(`expected one open watch${path ? ` on ${path}` : ""}, found ${open.length}`);
    return open[0]!;
  }

  /** GET requests made (on one path if given). */
  gets(path?: string): KubeRequest[] {
    return this.requests.filter((request) => !request.query?.watch && (path === undefined || request.path === path));
  }
}

export class ScriptedWatch {
  readonly request: KubeRequest;
  private readonly subscriber: Subscriber<unknown>;
  private closed = false;

  constructor(request: KubeRequest, subscriber: Subscriber<unknown>) {
    this.request = request;
    this.subscriber = subscriber;
  }

  /** Neither ended by the server nor abandoned by the client. */
  get open(): boolean {
    return !this.closed;
  }

  markClosed(): void {
    this.closed = true;
  }

  /** Sends one raw line (already parsed JSON). */
  line(value: unknown): void {
    this.subscriber.next(value);
  }

  send(type: "ADDED" | "MODIFIED" | "DELETED", object: unknown): void {
    this.line({ type, object });
  }

  bookmark(resourceVersion: string): void {
    this.line({ type: "BOOKMARK", object: { kind: "Pod", apiVersion: "v1", metadata: { resourceVersion } } });
  }

  /** An ERROR event carrying a Status, as the API server sends it (410 Expired for a resourceVersion too old). */
  status(code: number, reason: string, message: string): void {
    this.line({ type: "ERROR", object: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code } });
  }

  /** The server ends the response (timeoutSeconds reached, API server shutting down). */
  end(): void {
    this.closed = true;
    this.subscriber.complete();
  }

  /** The connection fails. */
  fail(error: unknown = new KubeRequestError("socket hang up")): void {
    this.closed = true;
    this.subscriber.error(error);
  }
}

/** A list body as the API server writes it. */
export function listBody(items: unknown[], resourceVersion: string, continueToken?: string): unknown {
  return { kind: "List", apiVersion: "v1", metadata: { resourceVersion, ...(continueToken ? { continue: continueToken } : {}) }, items };
}
