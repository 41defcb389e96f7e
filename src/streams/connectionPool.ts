// One connection pool for all of a transport's requests while the kubeconfig's TLS settings stay
// the same, so that a watch the server ended is resumed on the connection it ended on. client-node
// builds a new dispatcher (an undici Agent: a pool of its own) for every request, and a request
// on a new pool opens a new TCP and TLS connection. A watch is resumed at once after the server
// ends it, and until the next one is answered the collection is blind: its events wait on the
// server. bench cluster measured 54 pod watches re-opened in a 6-minute run (the API server ends
// the watchers it finds slow), blind for 142 ms at the median and up to 852 ms, of which the new
// connection's set-up took 82 ms at the median and up to 403 ms.
//
// An aborted request (an unsubscribed watch) still leaves nothing behind: undici destroys the
// socket of a request aborted before its response ended, pooled or not; only connections whose
// responses ended are kept for the next request (undici's keep-alive timeout, 4 s by default).
// A pool replaced because the TLS settings changed (an exec plugin's client certificate renewed)
// is closed gracefully: the requests in flight on it finish there, new ones go to the new pool.
// Kept connections never hold the process up: undici unreferences a socket with nothing in flight.
//
// Over HTTP/1.1, not the HTTP/2 undici 8 negotiates by default. Over HTTP/2 every watch shares one
// connection, and between the API server's watch goroutine and the service's reader there is only
// the stream's flow-control window (undici: 256 KiB, some 50 pod events; client-go's Go transport
// opens 4 MiB); over HTTP/1.1 each watch has a connection of its own, and the kernel's socket
// buffers take what the reader has not read yet. When the API server is short of CPU, the cacher
// closes every watcher whose buffer is still full once its dispatch budget is spent
// (k8s.io/apiserver `cacher/cache_watcher.go`), and one served over HTTP/2 is closed about three
// times as often (whether for the window or for the server's one writer per HTTP/2 connection was
// not measured apart): bench cluster at 1,000 observations over 20,000 pods on 2 cores (cluster-issue37-1256.json), a
// reader doing nothing but dropping the bytes of every namespace's pods was ended early 61 times
// over HTTP/2 and 21 over HTTP/1.1; the service's pod watch, over HTTP/2, 49 times. A connection
// per watch costs a TLS handshake when a watch starts on none kept (the pool keeps them 4 s).
import type { AgentOptions, RequestOptions } from "node:https";
import { Agent } from "undici";
import type { KubeConfig, RequestContext } from "@kubernetes/client-node";

export type Dispatcher = ReturnType<RequestContext["getDispatcher"]>;

export class ConnectionPool {
  readonly kubeConfig: KubeConfig;
  private current: { settings: string; dispatcher: Dispatcher } | undefined;

  constructor(kubeConfig: KubeConfig) {
    this.kubeConfig = kubeConfig;
  }

  /**
   * The dispatcher a request goes through: the pool before while the TLS settings are the ones it
   * was built for, else a new one (`built`, the one client-node just built for this request, or in
   * its place the same over HTTP/1.1), kept from now on.
   */
  async dispatcherFor(built: Dispatcher): Promise<Dispatcher> {
    if (built === undefined) return undefined;
    const tls = await this.tlsOptions();
    const settings = this.tlsSettings(tls);
    // Compared and swapped in one synchronous step: requests started together share one pool.
    if (this.current?.settings === settings) {
      void built.close().catch(() => undefined);
      return this.current.dispatcher;
    }
    const dispatcher = this.overHttp1(built, tls);
    const replaced = this.current?.dispatcher;
    this.current = { settings, dispatcher };
    void replaced?.close().catch(() => undefined);
    return dispatcher;
  }

  /**
   * client-node's dispatcher as it built it, but a plain agent (no proxy) built again with the same
   * connection options and HTTP/2 off. A proxy's agent is kept as built.
   */
  private overHttp1(built: NonNullable<Dispatcher>, tls: AgentOptions): Dispatcher {
    const options = this.kubeConfig.createDispatcherOptions(this.kubeConfig.getCurrentCluster(), tls);
    if (options.type !== "agent") return built;
    void built.close().catch(() => undefined);
    return new Agent({ connect: options.connect, allowH2: false });
  }

  /** What a dispatcher is built from besides the server: its CA, client certificate and key, verification. */
  private async tlsOptions(): Promise<AgentOptions> {
    const options: RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername } = options;
    return { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername };
  }

  /** The same with the server and proxy, as one string: what tells one pool's settings from another's. */
  private tlsSettings({ ca, cert, key, pfx, passphrase, rejectUnauthorized, servername }: AgentOptions): string {
    const cluster = this.kubeConfig.getCurrentCluster();
    const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString("base64") : value);
    return JSON.stringify([cluster?.server, cluster?.proxyUrl, ...[ca, cert, key, pfx, passphrase].map(text), rejectUnauthorized, servername]);
  }
}
