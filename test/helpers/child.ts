import { type ChildProcess, spawn } from "node:child_process";

/**
 * Starts a TypeScript file in a child Node process (this Node, with tsx's loader, and no
 * wrapper process: a signal sent to the child reaches the program itself).
 */
export function spawnTs(file: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", file], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr?.on("data", (d: Buffer) => process.stderr.write(`[child ${child.pid}] ${d}`));
  return child;
}

/** Resolves when a line matching `re` appears on the child's stdout. */
export function waitForLine(child: ChildProcess, re: RegExp, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re}`)), timeoutMs);
    const onData = (d: Buffer) => {
      buffer += d.toString();
      const line = buffer.split("\n").find((l) => re.test(l));
      if (line) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        resolve(line);
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before ${re}`)));
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}
