// A real `memstrata serve` for the tests and the type generator: a temporary database, one API
// key per tenant, a free port on 127.0.0.1. The Python that runs it is $MEMSTRATA_PYTHON, by
// default the repository's .venv (as CI builds it); extra environment goes to the server.
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "../../..");

export const python = process.env.MEMSTRATA_PYTHON ?? join(repoRoot, ".venv/bin/python");

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

/** Make an API key for `tenant` in the database file (`memstrata keys create`); `scopes`
 * default to the CLI's (read and write). */
export async function makeKey(db, tenant, scopes = []) {
  const { stdout } = await run(python, ["-m", "memstrata", "--db", db, "keys", "create",
    "--tenant", tenant, ...scopes.flatMap((scope) => ["--scope", scope])],
  { env: { ...process.env, NO_COLOR: "1" } });
  return stdout.trim();
}

/**
 * Start `memstrata serve`; resolves once /readyz answers. `tenants` get one key each
 * (`keys[tenant]`); `admin` (a tenant or prefix, e.g. "*") gets a key with the admin scope
 * (`adminKey`); `stop()` sends SIGTERM and waits for the process to exit.
 */
export async function startServer({ tenants = ["acme"], admin = null, env = {} } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "memstrata-ts-"));
  const db = join(dir, "memory.db");
  const keys = {};
  for (const tenant of tenants) keys[tenant] = await makeKey(db, tenant);
  const adminKey = admin === null ? null : await makeKey(db, admin, ["admin"]);
  const port = await freePort();
  const child = spawn(python, ["-m", "memstrata", "--db", db, "serve", "--port", String(port)], {
    env: {
      ...process.env,
      MEMSTRATA_EMBEDDER: "hash:64", // deterministic, no model to load
      MEMSTRATA_SUMMARY_CRON: "off",
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (chunk) => { log = (log + chunk).slice(-4000); });
  const exited = new Promise((done) => child.once("exit", done));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await rm(dir, { recursive: true, force: true });
      throw new Error(`memstrata serve exited (${child.exitCode}):\n${log}`);
    }
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
      throw new Error(`memstrata serve did not get ready at ${url}:\n${log}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  async function stop() {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  }
  return { url, db, keys, adminKey, stop };
}
