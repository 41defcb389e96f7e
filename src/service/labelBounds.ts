// Label values that come from requests or from what tenants write (a deployment's name, a custom
// resource's reason) are bounded: each is a time series Prometheus keeps, and 100,000 distinct
// deployment names would be 100,000 series of a histogram. The first `max` distinct values are
// kept as they are; every later one is counted under `(other)`, so totals stay right and the
// series count stays bounded for the life of the process. Values are cut too: a reason is a
// CamelCase word, but a status can hold a paragraph there.
//
// With tenants, each tenant has a budget of its own (tenantBoundedLabel) and its overflow its own
// `(other)` (the series carry the tenant label): one tenant naming 500 deployments used to spend
// the budget of every tenant for the life of the process. Tenants come from the tenants file, so
// their number is the file's, not a caller's choice.

export const otherLabelValue = "(other)";
const maxLabelChars = 64;

export function boundedLabel(max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    const label = value.length > maxLabelChars ? value.slice(0, maxLabelChars) : value;
    if (seen.has(label)) return label;
    if (seen.size >= max) return otherLabelValue;
    seen.add(label);
    return label;
  };
}

/** boundedLabel with a budget of `max` for each tenant; undefined (no tenants file) is one budget. */
export function tenantBoundedLabel(max: number): (tenant: string | undefined, value: string) => string {
  const budgets = new Map<string | undefined, (value: string) => string>();
  return (tenant, value) => {
    let label = budgets.get(tenant);
    if (!label) {
      label = boundedLabel(max);
      budgets.set(tenant, label);
    }
    return label(value);
  };
}

/** The tenant label of a series: absent without a tenant, so a service without a tenants file shows the series it always did. */
export function tenantLabel(tenant: string | undefined): { tenant?: string } {
  return tenant === undefined ? {} : { tenant };
}
