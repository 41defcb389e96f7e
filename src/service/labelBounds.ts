// Label values that come from requests or from what tenants write (a deployment's name, a custom
// resource's reason) are bounded: each is a time series Prometheus keeps, and 100,000 distinct
// deployment names would be 100,000 series of a histogram. The first `max` distinct values are
// kept as they are; every later one is counted under `other`, so totals stay right and the
// series count stays bounded for the life of the process. Values are cut too: a reason is a
// CamelCase word, but a status can hold a paragraph there.

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
