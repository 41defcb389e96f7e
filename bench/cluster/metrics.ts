// Prometheus text, as /metrics of stagewatch and kube-apiserver serve it, read into samples.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[4]) });
  }
  return samples;
}

/** The sum of every sample of `name` whose labels include `match`. */
export function total(samples: readonly Sample[], name: string, match: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/**
 * Quantiles of a histogram's increase between two scrapes, as the upper bound of the bucket the
 * quantile falls in (what a histogram can say: "at most").
 */
export function histogramQuantiles(before: readonly Sample[], after: readonly Sample[], name: string, quantiles: readonly number[]): { count: number; atMostSeconds: Record<string, number | null> } {
  const buckets = (samples: readonly Sample[]) =>
    new Map(samples.filter((s) => s.name === `${name}_bucket`).map((s) => [s.labels["le"]!, s.value]));
  const b0 = buckets(before);
  const increase = [...buckets(after)]
    .map(([le, value]) => ({ le: le === "+Inf" ? Infinity : Number(le), count: value - (b0.get(le) ?? 0) }))
    .sort((a, b) => a.le - b.le);
  const count = increase.at(-1)?.count ?? 0;
  const atMostSeconds: Record<string, number | null> = {};
  for (const q of quantiles) {
    const bucket = increase.find((b) => b.count >= q * count);
    atMostSeconds[`p${Math.round(q * 100)}`] = count === 0 || bucket === undefined || bucket.le === Infinity ? null : bucket.le;
  }
  return { count, atMostSeconds };
}

export async function scrape(url: string, headers: Record<string, string> = {}, fetchImpl: typeof fetch = fetch): Promise<Sample[]> {
  const response = await fetchImpl(url, { headers });
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return parseMetrics(await response.text());
}
