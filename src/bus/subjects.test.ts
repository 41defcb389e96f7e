import { describe, expect, it } from "vitest";
import { busNames, InvalidSubjectTokenError, isSubjectToken, newObservationId, subjectPrefixFromEnv } from "./subjects.js";

describe("busNames", () => {
  it("derives every name from the default prefix", () => {
    const names = busNames();
    expect({
      observe: names.observe,
      cancel: names.cancel,
      get: names.get,
      allEvents: names.allEvents,
      eventStream: names.eventStream,
      recordsBucket: names.recordsBucket,
      leasesBucket: names.leasesBucket,
      eventSubject: names.eventSubject("payments", "01J9Z3V4K8ZC0S2M5Q7W9E1R3T"),
      eventFilters: names.eventFilters("01J9Z3V4K8ZC0S2M5Q7W9E1R3T"),
      list: names.list,
    }).toEqual({
      observe: "stagewatch.observe",
      cancel: "stagewatch.cancel",
      get: "stagewatch.get",
      allEvents: "stagewatch.events.>",
      eventStream: "STAGEWATCH_EVENTS",
      recordsBucket: "stagewatch-observations",
      leasesBucket: "stagewatch-leases",
      eventSubject: "stagewatch.events.payments.01J9Z3V4K8ZC0S2M5Q7W9E1R3T",
      eventFilters: ["stagewatch.events.*.01J9Z3V4K8ZC0S2M5Q7W9E1R3T", "stagewatch.events.*.*.01J9Z3V4K8ZC0S2M5Q7W9E1R3T"],
      list: "stagewatch.list",
    });
  });

  it("puts the tenant in its request subjects and its events' subjects, which the filters of an id match", () => {
    const names = busNames();
    expect([names.tenantRequest("observe", "TEAM_A"), names.anyTenantRequest("list"), names.tenantEvents("TEAM_A")]).toEqual([
      "stagewatch.observe.TEAM_A",
      "stagewatch.list.*",
      "stagewatch.events.TEAM_A.>",
    ]);
    expect(names.eventSubject("payments", "id-1", "TEAM_A")).toBe("stagewatch.events.TEAM_A.payments.id-1");
    expect(() => names.eventSubject("payments", "id-1", "TEAM.A")).toThrow(InvalidSubjectTokenError);
    expect(() => names.tenantRequest("get", "*")).toThrow(InvalidSubjectTokenError);
  });

  it("gives each tenant a stream of its own whose subjects never meet the tenantless ones", () => {
    const names = busNames("acme.stage-watch");
    expect([names.tenantEventStream("team-a"), names.tenantEventSubjects("team-a"), names.tenantlessEvents]).toEqual([
      "ACME_STAGE_WATCH_EVENTS-team-a",
      "acme.stage-watch.events.team-a.*.*",
      "acme.stage-watch.events.*.*",
    ]);
    // The two layouts differ in token count: a tenant's subject is never a tenantless one.
    const tokens = (subject: string) => subject.split(".").length;
    expect(tokens(names.eventSubject("api", "id-1", "team-a"))).toBe(tokens(names.tenantEventSubjects("team-a")));
    expect(tokens(names.eventSubject("api", "id-1"))).toBe(tokens(names.tenantlessEvents));
    // Another prefix's stream never reads as a tenant's stream of this one: its name has no `-`.
    expect(busNames("acme.stage-watch.events.team").eventStream).not.toContain("-");
    expect(() => names.tenantEventStream("TEAM.A")).toThrow(InvalidSubjectTokenError);
  });

  it("keeps the stream and bucket of a dotted prefix apart from the default ones", () => {
    const names = busNames("acme.stage-watch");
    expect([names.observe, names.eventStream, names.recordsBucket]).toEqual([
      "acme.stage-watch.observe",
      "ACME_STAGE_WATCH_EVENTS",
      "acme-stage-watch-observations",
    ]);
  });

  it.each(["", ".stagewatch", "stagewatch.", "stage watch", "stagewatch.*", "a..b", "stagewatch.>"])("refuses the prefix %j", (prefix) => {
    expect(() => busNames(prefix)).toThrow(InvalidSubjectTokenError);
  });

  it.each([
    ["payments", "a.b"],
    ["payments", "*"],
    ["payments", ">"],
    ["pay.ments", "id"],
    ["payments", ""],
  ])("refuses to build an event subject from %j and %j", (deployment, observationId) => {
    expect(() => busNames().eventSubject(deployment, observationId)).toThrow(InvalidSubjectTokenError);
  });
});

describe("observation ids", () => {
  it("are subject tokens and unique", () => {
    const ids = Array.from({ length: 100 }, newObservationId);
    expect(ids.every(isSubjectToken)).toBe(true);
    expect(new Set(ids).size).toBe(100);
  });
});

describe("subjectPrefixFromEnv", () => {
  it("takes STAGEWATCH_SUBJECT_PREFIX, else the default; empty counts as unset", () => {
    expect(subjectPrefixFromEnv({ STAGEWATCH_SUBJECT_PREFIX: "prod-eu1" })).toBe("prod-eu1");
    expect(subjectPrefixFromEnv({ STAGEWATCH_SUBJECT_PREFIX: "" })).toBe("stagewatch");
    expect(subjectPrefixFromEnv({})).toBe("stagewatch");
  });
});

describe("verdictNotice", () => {
  it("is the event subject or filter under `verdicts`, outside what the event stream captures", () => {
    const names = busNames("acme.stagewatch");
    const id = newObservationId();
    expect(names.verdictNotice(names.eventSubject("payments", id))).toBe(`acme.stagewatch.verdicts.payments.${id}`);
    expect(names.eventFilters(id).map(names.verdictNotice)).toEqual([`acme.stagewatch.verdicts.*.${id}`, `acme.stagewatch.verdicts.*.*.${id}`]);
    expect(names.verdictNotice(names.eventSubject("payments", id, "TEAM_A"))).toBe(`acme.stagewatch.verdicts.TEAM_A.payments.${id}`);
    expect(names.verdictNotice(names.eventSubject("payments", id)).startsWith(names.allEvents.slice(0, -1))).toBe(false);
    expect(() => names.verdictNotice(`acme.stagewatch.get`)).toThrow(InvalidSubjectTokenError);
  });
});
