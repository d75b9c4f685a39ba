/**
 * `npm run bench:uploads`: the memory of dispute uploads (issue 37). A server process
 * (bench/uploads-server.ts) reads N concurrent uploads of one M MB file each, as the dispute
 * pages read them (each file within 10 MB, four reads at a time per process); this process
 * sends them (half with Content-Length, half chunked) and samples the server's RSS from /proc.
 * Prints one JSON object: every status, the server's RSS before and at its peak.
 *
 *   npm run bench:uploads [-- --uploads 16 --mb 60]
 *
 * Goal: every upload refused with 422, RSS growth under 100 MB (buffering the bodies would
 * take N × M MB; a read holds at most its 10 MB file, four at a time). The baseline is taken
 * after the server has settled (its start-up compiles and allocates for a second or more).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { sendBig } from "../test/server/client";

const { values } = parseArgs({
  options: {
    uploads: { type: "string", default: "16" },
    mb: { type: "string", default: "60" },
  },
});
const uploads = Number(values.uploads);
const MB = 1024 * 1024;
const BOUNDARY = "----dispute-upload";
const multipart = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };
const head = (filename: string) =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`,
  );

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) / 1024;
}

const server = spawn(process.execPath, ["--import", "tsx", "bench/uploads-server.ts"], {
  env: { ...process.env, LOG_LEVEL: "warn" },
  stdio: ["ignore", "pipe", "inherit"],
});
try {
  const port = await new Promise<string>((resolve, reject) => {
    server.once("exit", () => reject(new Error("the upload server exited")));
    server.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  const url = (i: number) => `http://127.0.0.1:${port}/app/disputes/${i}`;
  // Warm the code paths, then let the process settle, before the baseline.
  await sendBig(url(0), { bytes: 12 * MB, chunked: true, headers: multipart, prefix: head("w") });
  await new Promise((r) => setTimeout(r, 1500));
  const pid = server.pid!;
  const rssBefore = rssMb(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 10);
  const outcomes = await Promise.all(
    Array.from({ length: uploads }, (_, i) =>
      sendBig(url(i), {
        bytes: Number(values.mb) * MB,
        chunked: i % 2 === 1,
        headers: multipart,
        prefix: head(`big-${i}.png`),
      }),
    ),
  );
  clearInterval(sampler);
  const statuses: Record<string, number> = {};
  for (const o of outcomes) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  console.log(
    JSON.stringify({
      uploads,
      mb_each: Number(values.mb),
      statuses,
      rss_before_mb: Number(rssBefore.toFixed(1)),
      rss_peak_mb: Number(rssPeak.toFixed(1)),
      rss_growth_mb: Number((rssPeak - rssBefore).toFixed(1)),
    }),
  );
} finally {
  if (server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
  }
}
