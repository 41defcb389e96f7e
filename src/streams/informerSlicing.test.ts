// Lists applied a slice at a time (slicedQueue.ts): what consumers see between slices, and that
// slicing never costs a guarantee of the informer (index.ts): order per key, late subscribers
// that miss nothing and see nothing twice, synced only once the list's events are out, nothing
// after stop. Slices are run by hand (SteppedSlicing), on virtual time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WatchEvent } from "./cache.js";
import { InformerHub } from "./informerHub.js";
import { ScriptedTransport, SteppedSlicing, VirtualClock } from "./testing/index.js";
import { describeEvent, fixture, fixtureObject, recordEvents, serveList } from "./testing/scriptedObjects.js";
import { KubeRequestError } from "./transport.js";

const runningPod = fixture("pod-running.json");
const pod = (name: string, resourceVersion: string, uid?: string) => fixtureObject(runningPod, "payments", name, resourceVersion, uid);
const podsPath = "/api/v1/pods";
const jobsPath = "/apis/batch/v1/jobs";
const failedJob = fixture("job-failed.json");

function setup(stepsPerSlice: number) {
  const clock = new VirtualClock();
  const transport = new ScriptedTransport();
  const stepped = new SteppedSlicing(stepsPerSlice);
  const hub = new InformerHub({ transport, scheduler: clock.scheduler, random: () => 0, slicing: stepped.slicing });
  return { clock, transport, stepped, hub };
}

/** Pods a@10 to e@14, listed at resourceVersion 100: longer than the two-step slices these tests use. */
const serveFivePods = (transport: ScriptedTransport) =>
  serveList(transport, podsPath, { items: ["a", "b", "c", "d", "e"].map((name, i) => pod(name, String(10 + i))), resourceVersion: "100" });

const names = (informer: { list(): { metadata: { name: string; resourceVersion?: string } }[] }) =>
  informer.list().map((cached) => `${cached.metadata.name}@${cached.metadata.resourceVersion}`);

describe("informer: a list longer than a slice", () => {
  it("is applied and published a slice at a time, synced after its last slice, and watch events wait behind it", () => {
    const { clock, transport, stepped, hub } = setup(2);
    const server = serveFivePods(transport);
    server.failWith = new KubeRequestError("GET: 500", { status: 500 });
    const informer = hub.informer("core/Pod");
    const log: string[] = [];
    informer.synced$.subscribe((synced) => log.push(`synced ${synced}`));
    informer.events$.subscribe((event) => log.push(describeEvent(event)));
    server.failWith = undefined;

    clock.advance(800);
    expect(log).toEqual(["synced false", "added a@10", "added b@11"]);
    expect(names(informer)).toEqual(["a@10", "b@11"]);
    expect(informer.hasSynced()).toBe(false);
    // The watch is open from the list's resourceVersion at once; what it brings waits its turn.
    const watch = transport.currentWatch(podsPath);
    expect(watch.request.query?.resourceVersion).toBe("100");
    watch.send("MODIFIED", pod("a", "101"));
    expect(informer.get("payments", "a")?.metadata.resourceVersion).toBe("10");

    stepped.next();
    expect(log.slice(3)).toEqual(["added c@12", "added d@13"]);
    stepped.next();
    expect(log.slice(5)).toEqual(["added e@14", "synced true"]);
    expect(informer.hasSynced()).toBe(true);
    expect(stepped.drain()).toBe(1);
    expect(log.slice(7)).toEqual(["modified a@101"]);

    // Idle again: a watch event is applied and published before send returns.
    watch.send("DELETED", pod("b", "102"));
    expect(log.at(-1)).toBe("deleted b@102");
    expect(stepped.pending).toBe(0);
  });

  it("a relist applies the listed objects in list order, then the deletions; a subscriber joining meanwhile is served after it", () => {
    const { clock, transport, stepped, hub } = setup(2);
    const server = serveList(transport, podsPath, { items: [pod("a", "1"), pod("b", "2"), pod("c", "3"), pod("d", "4")], resourceVersion: "10" });
    const informer = hub.informer("core/Pod");
    stepped.drain();
    const early = recordEvents(informer.events$);
    stepped.drain();
    early.length = 0;

    clock.advance(60_000);
    // b changed, c was deleted, d deleted and created again under its name, e created.
    Object.assign(server, { items: [pod("a", "1"), pod("b", "20"), pod("d", "22", "uid-d-2"), pod("e", "21")], resourceVersion: "30" });
    transport.currentWatch(podsPath).status(410, "Expired", "too old resource version: 10 (30)");
    clock.advance(0);
    // a (unchanged, no event) and b: the first slice.
    expect(early).toEqual(["modified b@20"]);
    // Deletions come last: c is still cached, and so is the old d.
    expect(names(informer)).toEqual(["a@1", "b@20", "c@3", "d@4"]);
    const late = recordEvents(informer.events$);
    transport.currentWatch(podsPath).send("MODIFIED", pod("e", "31"));
    expect(late).toEqual([]);

    stepped.drain();
    expect(early).toEqual(["modified b@20", "deleted d@4", "added d@22", "added e@21", "deleted c@3", "modified e@31"]);
    expect(late).toEqual(["added a@1", "added b@20", "added d@22", "added e@21", "modified e@31"]);
    expect(names(informer)).toEqual(["a@1", "b@20", "d@22", "e@31"]);
  });

  it("a late subscriber to a large cache gets its snapshot a slice at a time, then the changes after it", () => {
    const { transport, stepped, hub } = setup(2);
    serveFivePods(transport);
    const informer = hub.informer("core/Pod");
    stepped.drain();

    const late = recordEvents(informer.events$);
    expect(late).toEqual(["added a@10", "added b@11"]);
    transport.currentWatch(podsPath).send("MODIFIED", pod("a", "101"));
    transport.currentWatch(podsPath).send("MODIFIED", pod("e", "102"));
    stepped.drain();
    // The snapshot holds what the cache held when it began; both changes come after it.
    expect(late).toEqual(["added a@10", "added b@11", "added c@12", "added d@13", "added e@14", "modified a@101", "modified e@102"]);
  });

  it("stop while a list is applied: nothing more is applied or published, and every subscriber completes", () => {
    const { clock, transport, stepped, hub } = setup(2);
    const server = serveFivePods(transport);
    server.failWith = new KubeRequestError("GET: 500", { status: 500 });
    const informer = hub.informer("core/Pod");
    const completed: string[] = [];
    const early = recordEvents(informer.events$);
    informer.events$.subscribe({ complete: () => completed.push("early") });
    informer.synced$.subscribe({ complete: () => completed.push("synced") });
    server.failWith = undefined;
    clock.advance(800);
    const late: WatchEvent[] = [];
    informer.events$.subscribe({ next: (event) => late.push(event), complete: () => completed.push("late") });

    informer.stop();
    expect(completed.sort()).toEqual(["early", "late", "synced"]);
    // The hub's queue may still run a slice: it drops the stopped informer's work unrun.
    stepped.drain();
    expect(early).toEqual(["added a@10", "added b@11"]);
    expect(late).toEqual([]);
    expect(names(informer)).toEqual(["a@10", "b@11"]);
    expect(informer.hasSynced()).toBe(false);
    // A subscriber after stop completes at once, with nothing.
    const after: WatchEvent[] = [];
    informer.events$.subscribe({ next: (event) => after.push(event), complete: () => completed.push("after") });
    expect(completed).toContain("after");
    expect(after).toEqual([]);
  });
});

describe("informers of one hub: one queue, one order across kinds", () => {
  /** Five pods and a Job, listed and synced: a pod snapshot takes three slices. */
  function listedPodsAndJob() {
    const { clock, transport, stepped, hub } = setup(2);
    serveFivePods(transport);
    serveList(transport, jobsPath, { items: [fixtureObject(failedJob, "payments", "migrate", "7")], resourceVersion: "8" });
    const pods = hub.informer("core/Pod");
    const jobs = hub.informer("batch/Job");
    stepped.drain();
    expect(pods.hasSynced() && jobs.hasSynced()).toBe(true);
    // One subscriber to both kinds, pods first (as an observation subscribes), its events written down.
    const log: string[] = [];
    const subscribeToBoth = () => {
      pods.events$.subscribe((event) => log.push(`pod ${describeEvent(event)}`));
      jobs.events$.subscribe((event) => log.push(`job ${describeEvent(event)}`));
    };
    return { clock, transport, stepped, pods, jobs, log, subscribeToBoth };
  }

  it("a subscriber to pods, then to Jobs, gets every cached pod before the first Job and hears synced after both", () => {
    const { stepped, jobs, log, subscribeToBoth } = listedPodsAndJob();
    subscribeToBoth();
    jobs.synced$.subscribe((synced) => log.push(`jobs synced ${synced}`));
    // The Job's snapshot is one object, but it waits behind the pods' snapshot.
    expect(log).toEqual(["pod added a@10", "pod added b@11"]);
    stepped.drain();
    expect(log).toEqual(["pod added a@10", "pod added b@11", "pod added c@12", "pod added d@13", "pod added e@14", "job added migrate@7", "jobs synced true"]);
  });

  it("a watch event of one kind waits behind another kind's snapshot in progress", () => {
    const { transport, stepped, log, subscribeToBoth } = listedPodsAndJob();
    subscribeToBoth();
    transport.currentWatch(jobsPath).send("MODIFIED", fixtureObject(failedJob, "payments", "migrate", "9"));
    expect(log).toEqual(["pod added a@10", "pod added b@11"]);
    stepped.drain();
    expect(log.slice(-2)).toEqual(["job added migrate@7", "job modified migrate@9"]);
  });

  it("a watch event of a kind with nothing queued is applied at once, while another kind's relist is applied in slices", () => {
    const { clock, transport, stepped, jobs, log, subscribeToBoth } = listedPodsAndJob();
    subscribeToBoth();
    stepped.drain();
    log.length = 0;
    // A watch that has run a while is relisted at once after a 410: five pods, three slices.
    clock.advance(1_000);
    transport.currentWatch(podsPath).status(410, "Expired", "too old resource version");
    clock.advance(0);
    expect(stepped.pending).toBe(1);
    transport.currentWatch(jobsPath).send("MODIFIED", fixtureObject(failedJob, "payments", "migrate", "9"));
    expect(log).toEqual(["job modified migrate@9"]);
    expect(jobs.get("payments", "migrate")?.metadata.resourceVersion).toBe("9");
    stepped.drain();
  });

  it("an informer stopped mid-snapshot drops its own work only: the other kinds' queued work still runs", () => {
    const { stepped, pods, log, subscribeToBoth } = listedPodsAndJob();
    subscribeToBoth();
    pods.stop();
    stepped.drain();
    expect(log).toEqual(["pod added a@10", "pod added b@11", "job added migrate@7"]);
  });
});

describe("informer: slicing keeps every guarantee (property)", () => {
  const universe = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"];
  const write = fc.record({ type: fc.constant("write" as const), name: fc.constantFrom(...universe) });
  const remove = fc.record({ type: fc.constant("delete" as const), name: fc.constantFrom(...universe) });
  const command = fc.oneof(
    write,
    remove,
    // A 410 Gone, changes the watch never delivers, then the relist that finds them.
    fc.record({ type: fc.constant("relist" as const), gap: fc.array(fc.oneof(write, remove), { maxLength: 8 }) }),
    fc.record({ type: fc.constant("join" as const) }),
    // The first subscriber's next event makes another subscriber join, from inside its handler.
    fc.record({ type: fc.constant("joinInside" as const) }),
    fc.record({ type: fc.constant("slice" as const) }),
    fc.record({ type: fc.constant("stop" as const) }),
  );
  type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

  interface Seen {
    type: WatchEvent["type"];
    name: string;
    uid: string;
    resourceVersion: number;
  }

  /** The subscriber's view, folded from its events, checking each against the view so far. */
  function fold(events: readonly Seen[]): Map<string, string> {
    const view = new Map<string, { uid: string; resourceVersion: number }>();
    const lastVersion = new Map<string, number>();
    for (const event of events) {
      const previous = lastVersion.get(event.name);
      // Per key, resourceVersions go up; a deletion found by a relist carries the last state seen.
      if (previous !== undefined) expect(event.resourceVersion > previous || (event.type === "deleted" && event.resourceVersion === previous)).toBe(true);
      lastVersion.set(event.name, event.resourceVersion);
      const held = view.get(event.name);
      if (event.type === "added") expect(held).toBeUndefined();
      else expect(held?.uid).toBe(event.uid);
      if (event.type === "deleted") view.delete(event.name);
      else view.set(event.name, { uid: event.uid, resourceVersion: event.resourceVersion });
    }
    return new Map([...view].map(([name, { uid, resourceVersion }]) => [name, `${uid}@${resourceVersion}`]));
  }

  function run(initial: readonly string[], stepsPerSlice: number, commands: readonly Command[]): void {
    const { clock, transport, stepped, hub } = setup(stepsPerSlice);
    let version = 0;
    let incarnation = 0;
    const server = new Map<string, { uid: string; resourceVersion: string }>();
    const state = (name: string) => {
      const stored = server.get(name)!;
      return pod(name, stored.resourceVersion, stored.uid);
    };
    /** Changes the server's state; returns the watch event that says so, if any. */
    const change = ({ type, name }: { type: "write" | "delete"; name: string }): ["ADDED" | "MODIFIED" | "DELETED", unknown] | undefined => {
      const existing = server.get(name);
      version += 1;
      if (type === "delete") {
        if (!existing) return undefined;
        const last = pod(name, String(version), existing.uid);
        server.delete(name);
        return ["DELETED", last];
      }
      server.set(name, { uid: existing?.uid ?? `uid-${name}-${++incarnation}`, resourceVersion: String(version) });
      return [existing ? "MODIFIED" : "ADDED", state(name)];
    };
    for (const name of initial) change({ type: "write", name });
    transport.onGet(podsPath, () => ({ kind: "List", apiVersion: "v1", metadata: { resourceVersion: String(version) }, items: [...server.keys()].map(state) }));

    const informer = hub.informer("core/Pod");
    const subscribers: { events: Seen[]; completed: boolean }[] = [];
    let joinOnNextEvent = false;
    const join = () => {
      const subscriber = { events: [] as Seen[], completed: false };
      const first = subscribers.length === 0;
      subscribers.push(subscriber);
      informer.events$.subscribe({
        next: ({ type, object }) => {
          const { name, uid, resourceVersion } = object.metadata;
          subscriber.events.push({ type, name, uid, resourceVersion: Number(resourceVersion) });
          if (first && joinOnNextEvent) {
            joinOnNextEvent = false;
            join();
          }
        },
        complete: () => (subscriber.completed = true),
      });
    };
    join();

    let stopped = false;
    for (const step of commands) {
      if (step.type === "slice") stepped.next();
      else if (step.type === "join") join();
      else if (step.type === "joinInside") joinOnNextEvent = true;
      else if (stopped) continue;
      else if (step.type === "stop") {
        stopped = true;
        informer.stop();
      } else if (step.type === "relist") {
        // A watch that has run a while is relisted at once after a 410, not after the backoff.
        clock.advance(1_000);
        transport.currentWatch(podsPath).status(410, "Expired", "too old resource version");
        for (const gapChange of step.gap) change(gapChange);
        clock.advance(0);
      } else {
        const event = change(step);
        if (event) transport.currentWatch(podsPath).send(...event);
      }
    }

    if (stopped) {
      const cached = names(informer);
      const counts = subscribers.map((subscriber) => subscriber.events.length);
      stepped.drain();
      expect(names(informer)).toEqual(cached);
      expect(subscribers.map((subscriber) => subscriber.events.length)).toEqual(counts);
      expect(subscribers.every((subscriber) => subscriber.completed)).toBe(true);
      return;
    }
    stepped.drain();
    expect(informer.hasSynced()).toBe(true);
    const cache = new Map(informer.list().map(({ metadata }) => [metadata.name, `${metadata.uid}@${metadata.resourceVersion}`]));
    // Nothing lost, nothing stale: the cache is the server's state once everything is applied...
    expect(cache).toEqual(new Map([...server].map(([name, { uid, resourceVersion }]) => [name, `${uid}@${resourceVersion}`])));
    // ...and each subscriber's snapshot and events add up to it, whenever it joined.
    for (const subscriber of subscribers) expect(fold(subscriber.events)).toEqual(cache);
  }

  it("every subscriber's view is the cache once the queue drains, events per key in resourceVersion order, nothing after stop", () => {
    fc.assert(
      fc.property(fc.subarray(universe), fc.integer({ min: 1, max: 4 }), fc.array(command, { maxLength: 40 }), (initial, stepsPerSlice, commands) =>
        run(initial, stepsPerSlice, commands),
      ),
      { numRuns: 400 },
    );
  });
});
