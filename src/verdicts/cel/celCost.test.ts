// The CEL cost limit: an expression over a status a tenant made large is not evaluated (its
// reading names the limit), and the health library's own test objects stay far under it.
import { parse } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { librarySources, libraryTestObject } from "../../../scripts/healthLibrary/files.ts";
import type { KubeObject } from "../../kube/objects.js";
import { costPolynomial, defaultCelCostLimit, estimatedCost, largestRange } from "./celCost.js";
import { compileHealthCheck } from "./celHealthChecks.js";

const widget = (status: Record<string, unknown>): KubeObject =>
  ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "payments", uid: "u-1", generation: 1 }, status }) as KubeObject;

describe("CEL cost estimate", () => {
  it("is constant for an expression without loops, linear for one loop, quadratic for two nested", () => {
    expect(costPolynomial(parse("status.phase == 'Ready'"))).toHaveLength(1);
    expect(costPolynomial(parse("status.conditions.exists(c, c.type == 'Ready')"))).toHaveLength(2);
    expect(costPolynomial(parse("status.items.exists(a, status.items.exists(b, a == b))"))).toHaveLength(3);
  });

  it("bounds every range by the object's longest list or largest map, at any depth", () => {
    expect(largestRange({ a: [1, 2, 3], b: { c: [{ d: [1, 2, 3, 4, 5] }] } })).toBe(5);
    expect(largestRange({ a: 1, b: 2 })).toBe(2);
  });
});

describe("a health check past the cost limit", () => {
  const check = { apiVersion: "example.com/v1", kind: "Widget", current: "status.items.exists(a, status.items.exists(b, a != b && a.name == b.name))" };

  it("is not evaluated on a large status: pending, HealthCheckError naming the limit, at once", () => {
    const rule = compileHealthCheck(check, "example.com/Widget");
    const items = Array.from({ length: 100_000 }, (_, i) => ({ name: `item-${i}` }));
    const startedAt = performance.now();
    const reading = rule({ object: widget({ items }) } as never);
    const ms = performance.now() - startedAt;
    expect(reading).toMatchObject({ state: "pending", reason: "HealthCheckError" });
    expect(reading.message).toContain(`over the CEL cost limit ${defaultCelCostLimit}`);
    // Evaluated, it would be 10^10 comparisons: minutes, not the milliseconds counting takes.
    expect(ms).toBeLessThan(5_000);
  });

  it("is evaluated on a small one, and a lower limit given at compile time refuses it too", () => {
    const small = widget({ items: [{ name: "a" }, { name: "b" }] });
    expect(compileHealthCheck(check, "example.com/Widget")({ object: small } as never)).toMatchObject({ state: "pending", reason: "HealthCheckInProgress" });
    const strict = compileHealthCheck(check, "example.com/Widget", { costLimit: 10 })({ object: small } as never);
    expect(strict.message).toContain("over the CEL cost limit 10");
  });
});

describe("the health library under the default limit", () => {
  const sources = librarySources();

  it("estimates every entry's expressions on its own test objects at under a hundredth of the limit", () => {
    let highest = 0;
    for (const { file } of sources) {
      for (const test of file.tests) {
        let object: KubeObject;
        try {
          object = libraryTestObject(file, test);
        } catch {
          continue;
        }
        const size = largestRange(object);
        for (const source of [file.current, file.inProgress, file.failed, file.reason, file.message]) {
          if (source !== undefined) highest = Math.max(highest, estimatedCost(costPolynomial(parse(source)), size));
        }
      }
    }
    expect(highest).toBeGreaterThan(0);
    expect(highest).toBeLessThan(defaultCelCostLimit / 100);
  }, 60_000);

  it("evaluates the Gateway entry on a Gateway at the API's own bounds: 64 listeners, 8 conditions each", () => {
    const gateway = sources.find(({ path }) => path === "gateway.networking.k8s.io/Gateway.yaml")!.file;
    const conditions = Array.from({ length: 8 }, (_, i) => ({ type: `Condition${i}`, status: "True", reason: "Ok", message: "", observedGeneration: 1 }));
    const listeners = Array.from({ length: 64 }, (_, i) => ({ name: `listener-${i}`, attachedRoutes: 1, supportedKinds: [], conditions }));
    for (const source of [gateway.current, gateway.inProgress, gateway.failed, gateway.reason, gateway.message]) {
      if (source !== undefined) expect(estimatedCost(costPolynomial(parse(source)), largestRange({ status: { conditions, listeners } }))).toBeLessThan(defaultCelCostLimit);
    }
  });
});
