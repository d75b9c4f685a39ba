/** Reading Prometheus's text format in tests: one sample's value by name and labels. */
import { renderMetrics } from "../../app/metrics.server";
import { databaseGauges } from "../../app/metrics.server";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the sample with this name and (at least) these labels; 0 when absent. */
export function value(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  const hits = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (hits.length > 1) {
    throw new Error(`${name} ${JSON.stringify(labels)} matches ${hits.length} samples`);
  }
  return hits[0]?.value ?? 0;
}

/** Sums every sample with this name and these labels (e.g. over all kinds). */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

/** This process's metrics now, with the database gauges read afresh. */
export async function scrape(): Promise<Sample[]> {
  databaseGauges.invalidate();
  return parseMetrics((await renderMetrics()).body);
}
