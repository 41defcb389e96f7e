// A cost limit for CEL health checks. The expressions are the operator's, but the objects they
// read are whoever may write a custom resource's status: a nested `exists` over a list the
// tenant makes 100,000 entries long is 10^10 steps, and evaluation runs on the event loop every
// other observation shares. @bufbuild/cel counts nothing while it evaluates (0.6 has no cost
// tracking, unlike cel-go's ActualCostLimit), so the cost is bounded before evaluation instead,
// as Kubernetes bounds CRD validation rules by their estimated cost:
// - at compile time, an expression's cost is a polynomial in the length of the lists it loops
//   over: every node costs 1, and a comprehension (`exists`, `all`, `map`, `filter`) costs its
//   loop body once per element of its range;
// - at evaluation, the object's longest list (or largest map) bounds every range, the polynomial
//   is evaluated at it, and an expression over the limit is not run: its reading is
//   HealthCheckError naming the limit.
// The estimate is an upper bound (loose where inner lists are shorter than the longest). One unit
// took about a microsecond in @bufbuild/cel on the test machine (a nested `exists` over 300
// items, 1.3 million units, in 1.7 s, cold), so the default bounds one evaluation near a second,
// and the health library's entries on large real objects stay under it (celCost.test.ts).
// What strings cost (a `matches` over a long message) is not counted: it is linear in the text,
// which the API server bounds (1.5 MB an object).
import type { parse } from "@bufbuild/cel";

type ParsedExpr = ReturnType<typeof parse>;
type Expr = ParsedExpr["expr"];

/** Cost units one evaluation may take, estimated; Kubernetes' per-call limit for CRD validation rules is 10^6 too. */
export const defaultCelCostLimit = 1_000_000;

/** Coefficients by power of the input's size: [constant, per element, per element squared, ...]. */
export type CostPolynomial = readonly number[];

function add(a: readonly number[], b: readonly number[]): number[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => (a[i] ?? 0) + (b[i] ?? 0));
}

/** `a` once per element: every coefficient one power up. */
function perElement(a: readonly number[]): number[] {
  return [0, ...a];
}

function costOf(expr: Expr | undefined): number[] {
  if (!expr) return [];
  const kind = expr.exprKind;
  switch (kind.case) {
    case "selectExpr":
      return add([1], costOf(kind.value.operand));
    case "callExpr":
      return [kind.value.target, ...kind.value.args].reduce<number[]>((sum, arg) => add(sum, costOf(arg)), [1]);
    case "listExpr":
      return kind.value.elements.reduce<number[]>((sum, element) => add(sum, costOf(element)), [1]);
    case "structExpr":
      return kind.value.entries.reduce<number[]>((sum, entry) => add(add(sum, costOf(entry.keyKind.case === "mapKey" ? entry.keyKind.value : undefined)), costOf(entry.value)), [1]);
    case "comprehensionExpr": {
      const { iterRange, accuInit, loopCondition, loopStep, result } = kind.value;
      const body = add(costOf(loopCondition), costOf(loopStep));
      return add(add(add([1], costOf(iterRange)), costOf(accuInit)), add(perElement(body), costOf(result)));
    }
    default:
      return [1];
  }
}

export function costPolynomial(parsed: ParsedExpr): CostPolynomial {
  return costOf(parsed.expr);
}

const ranges = new WeakMap<object, number>();

/**
 * The most elements one comprehension over `value` can range over: its longest list or largest
 * map, at any depth. Memoised per object (cached objects are never changed).
 */
export function largestRange(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const known = ranges.get(value);
  if (known !== undefined) return known;
  const children = Array.isArray(value) ? value : Object.values(value);
  let largest = children.length;
  for (const child of children) largest = Math.max(largest, largestRange(child));
  ranges.set(value, largest);
  return largest;
}

/** The polynomial at `range` elements a loop: each nested comprehension multiplies its body by it. */
export function estimatedCost(polynomial: CostPolynomial, range: number): number {
  return polynomial.reduce((sum, coefficient, power) => sum + coefficient * (range + 1) ** power, 0);
}
