// What the informer cache keeps of a custom kind judged by a CEL health check: the fields its
// expressions read (cel/fieldsRead.ts), for the user's check of the kind, else the health
// library's. Other kinds are stripped the cache's usual way (src/streams/strip.ts).
import { libraryRuleFor } from "../library/index.js";
import { fieldsReadByRule, type FieldTree } from "../cel/celHealthChecks.js";
import type { Rule } from "../rules/input.js";

export function cachedFieldsOf(kindKey: string, healthChecks?: ReadonlyMap<string, Rule>): FieldTree | undefined {
  const rule = healthChecks?.get(kindKey) ?? libraryRuleFor(kindKey);
  return rule && fieldsReadByRule(rule);
}
