// Which fields of an object a CEL health check reads, found in its expressions' syntax trees, so
// that the informer cache keeps those and no more (src/streams/fieldSelection.ts applies the tree).
// A Flux Kustomization's status holds its whole inventory, an Argo Rollout's its canary history,
// a Crossplane resource's everything its cloud API returned: a health check reads a few fields.
//
// The tree is conservative where the syntax cannot tell: a field used as a value (compared,
// passed to a function, `size()`) is kept whole; a field only tested with `has()` is kept with
// none of its own fields (an object or list of empty objects: presence and length hold); a list
// iterated by a macro (`exists`, `all`, `filter`, `map`) keeps, of each element, what the loop
// variable reads, and whole when the variable is used as a value or not at all (a map's keys).
// An index that is not a constant keeps its operand whole. Of metadata, the cache keeps what it
// keeps for every kind, and the labels and annotations the tree names.
import { parse } from "@bufbuild/cel";

/** `true`: the value whole; an object: only these of its fields (of each element, for a list). */
export type FieldTree = true | { readonly [field: string]: FieldTree };

type MutableTree = true | { [field: string]: MutableTree };
type Path = readonly string[];

// The parts of @bufbuild/cel's parsed expression (cel.expr.Expr) this walk reads.
interface Expr {
  exprKind:
    | { case: "identExpr"; value: { name: string } }
    | { case: "selectExpr"; value: { operand?: Expr; field: string; testOnly: boolean } }
    | { case: "callExpr"; value: { target?: Expr; function: string; args: Expr[] } }
    | { case: "comprehensionExpr"; value: { iterVar: string; iterVar2: string; iterRange?: Expr; accuInit?: Expr; loopCondition?: Expr; loopStep?: Expr; result?: Expr } }
    | { case: "listExpr"; value: { elements: Expr[] } }
    | { case: "structExpr"; value: { entries: { keyKind: { case: string; value?: unknown }; value?: Expr }[] } }
    | { case: "constExpr" | undefined; value?: unknown };
}

const roots: ReadonlySet<string> = new Set(["spec", "status", "metadata"]);

class Reads {
  readonly tree: { [field: string]: MutableTree } = {};
  /** Loop variables in scope: what each stands for, and whether it was used at all. */
  private readonly scopes: { name: string; path: Path; used: boolean }[] = [];

  mark(path: Path, whole: boolean): void {
    if (path.length === 0) return;
    let node: { [field: string]: MutableTree } = this.tree;
    for (const [index, field] of path.entries()) {
      const last = index === path.length - 1;
      const next = node[field];
      if (next === true) return;
      if (last) {
        node[field] = whole ? true : (next ?? {});
        return;
      }
      node = node[field] = next ?? {};
    }
  }

  /** The field an expression names: `status.conditions`, a loop variable's element, a constant index. */
  pathOf(expr: Expr | undefined): Path | undefined {
    if (!expr) return undefined;
    const { exprKind } = expr;
    switch (exprKind.case) {
      case "identExpr": {
        const scope = this.scopes.findLast((s) => s.name === exprKind.value.name);
        if (scope) {
          scope.used = true;
          return scope.path;
        }
        return roots.has(exprKind.value.name) ? [exprKind.value.name] : undefined;
      }
      case "selectExpr": {
        const operand = this.pathOf(exprKind.value.operand);
        return operand && [...operand, exprKind.value.field];
      }
      case "callExpr": {
        const { function: name, args } = exprKind.value;
        if (name !== "_[_]" || args.length !== 2) return undefined;
        const index = args[1]!.exprKind;
        if (index.case !== "constExpr") return undefined;
        const operand = this.pathOf(args[0]);
        const constant = (index.value as { constantKind?: { case?: string; value?: unknown } }).constantKind;
        if (!operand || !constant) return undefined;
        // Lists are transparent in the tree: an element's fields are the list's.
        if (constant.case === "int64Value" || constant.case === "uint64Value") return operand;
        return constant.case === "stringValue" ? [...operand, String(constant.value)] : undefined;
      }
      default:
        return undefined;
    }
  }

  walk(expr: Expr | undefined): void {
    if (!expr) return;
    const { exprKind } = expr;
    const path = this.pathOf(expr);
    if (path) {
      this.mark(path, !(exprKind.case === "selectExpr" && exprKind.value.testOnly));
      return;
    }
    switch (exprKind.case) {
      case "selectExpr":
        this.walk(exprKind.value.operand);
        return;
      case "callExpr": {
        // `'key' in map`: the map's entry for the key, present or not (how a guarded lookup of a
        // label or annotation reads), not the whole map.
        const [needle, haystack] = exprKind.value.args;
        const key = exprKind.value.function === "@in" && needle?.exprKind.case === "constExpr" ? constantString(needle) : undefined;
        const map = key === undefined ? undefined : this.pathOf(haystack);
        if (key !== undefined && map) {
          this.mark([...map, key], false);
          return;
        }
        this.walk(exprKind.value.target);
        for (const arg of exprKind.value.args) this.walk(arg);
        return;
      }
      case "comprehensionExpr": {
        const { iterVar, iterVar2, iterRange, accuInit, loopCondition, loopStep, result } = exprKind.value;
        const range = this.pathOf(iterRange);
        if (!range || iterVar2 !== "") this.walk(iterRange);
        else this.mark(range, false);
        const scope = { name: iterVar, path: range ?? [], used: false };
        if (range && iterVar2 === "") this.scopes.push(scope);
        for (const part of [accuInit, loopCondition, loopStep, result]) this.walk(part);
        if (range && iterVar2 === "") {
          this.scopes.pop();
          if (!scope.used) this.mark(range, true);
        }
        return;
      }
      case "listExpr":
        for (const element of exprKind.value.elements) this.walk(element);
        return;
      case "structExpr":
        for (const { keyKind, value } of exprKind.value.entries) {
          if (keyKind.case === "mapKey") this.walk(keyKind.value as Expr);
          this.walk(value);
        }
        return;
      default:
        return;
    }
  }
}

function constantString(expr: Expr): string | undefined {
  const constant = (expr.exprKind.value as { constantKind?: { case?: string; value?: unknown } }).constantKind;
  return constant?.case === "stringValue" ? String(constant.value) : undefined;
}

/** The fields an expression reads; it must parse (compile it first). */
export function fieldsReadByExpression(source: string): FieldTree {
  const reads = new Reads();
  reads.walk(parse(source).expr as unknown as Expr);
  return reads.tree;
}

/** Both trees' fields. */
export function mergeFields(a: FieldTree, b: FieldTree): FieldTree {
  if (a === true || b === true) return true;
  const merged: { [field: string]: FieldTree } = { ...a };
  for (const [field, tree] of Object.entries(b)) merged[field] = merged[field] === undefined ? tree : mergeFields(merged[field], tree);
  return merged;
}

/**
 * What the rule around every health check reads besides its expressions: the generic checks
 * (`status.observedGeneration`) and the object's own words (signals.ts: conditions, message,
 * phase and state).
 */
export const fieldsReadAroundChecks: FieldTree = {
  status: {
    observedGeneration: true,
    message: true,
    phase: true,
    state: true,
    conditions: { type: true, status: true, reason: true, message: true, observedGeneration: true },
  },
};

/** A health check's expressions (celHealthChecks.ts HealthCheck), as this module needs them: it sits below that one. */
export interface CheckExpressions {
  readonly current: string;
  readonly inProgress?: string | undefined;
  readonly failed?: string | undefined;
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
}

/** The fields a health check reads, with those its rule reads around it. */
export function fieldsReadByCheck(check: CheckExpressions): FieldTree {
  const sources = [check.current, check.inProgress, check.failed, check.reason, check.message].filter((s) => s !== undefined);
  return sources.map(fieldsReadByExpression).reduce(mergeFields, fieldsReadAroundChecks);
}
