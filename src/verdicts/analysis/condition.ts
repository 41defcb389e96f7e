// A template's success condition, `result < 0.01`: one comparison of the measured value with a
// number. Argo Rollouts evaluates expr-lang there; a comparison covers what error-rate, latency
// and saturation checks ask, and its negation is what a failure line shows (`0.042 >= 0.01`).
export const operators = ["<=", ">=", "==", "!=", "<", ">"] as const;
export type Operator = (typeof operators)[number];

export interface Condition {
  readonly operator: Operator;
  readonly threshold: number;
}

const negation: Record<Operator, Operator> = { "<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "==" };

const pattern = /^\s*result\s*(<=|>=|==|!=|<|>)\s*(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$/;

export function parseCondition(text: string): { ok: true; condition: Condition } | { ok: false } {
  const match = pattern.exec(text);
  if (!match) return { ok: false };
  return { ok: true, condition: { operator: match[1] as Operator, threshold: Number(match[2]) } };
}

export function meets({ operator, threshold }: Condition, value: number): boolean {
  switch (operator) {
    case "<":
      return value < threshold;
    case "<=":
      return value <= threshold;
    case ">":
      return value > threshold;
    case ">=":
      return value >= threshold;
    case "==":
      return value === threshold;
    case "!=":
      return value !== threshold;
  }
}

/** Why `value` failed `condition`, as a failure line shows it: `0.042 >= 0.01`. */
export function failedComparison({ operator, threshold }: Condition, value: number): string {
  return `${value} ${negation[operator]} ${threshold}`;
}
