/** Small pieces the benches share. */
import type { ChildProcess } from "node:child_process";

/** The p-th percentile (nearest rank) of `xs`, rounded; null for none. */
export function percentile(xs: number[], p: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!);
}

/** Resolves once the server answers 200 on /healthz; throws if it exits or takes over `ms`. */
export async function waitHealthy(server: ChildProcess, baseUrl: string, ms = 30_000) {
  for (const until = Date.now() + ms; Date.now() < until; ) {
    if (server.exitCode !== null) throw new Error("the server exited");
    const ok = await fetch(`${baseUrl}/healthz`).then(
      (r) => r.status === 200,
      () => false, // not listening yet
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the server did not become healthy");
}
