// The README's agent loop is examples/agent.ts, and it runs as written against a real
// `memstrata serve`; the fetch agent of docs/integrations.md is examples/openai-fetch.ts (which
// `npm run check` type-checks).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { MemoryClient } from "../dist/index.js";
import { startServer } from "../scripts/serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = promisify(execFile);

test("the README shows examples/agent.ts as it is", async () => {
  const readme = await readFile(join(root, "README.md"), "utf8");
  const example = await readFile(join(root, "examples/agent.ts"), "utf8");
  const shown = readme.split("<!-- example: examples/agent.ts -->\n```ts\n")[1]?.split("```\n")[0];
  assert.equal(shown, example);
  assert.ok(example.split("\n").length <= 35);
});

test("docs/integrations.md shows examples/openai-fetch.ts as it is", async () => {
  const docs = await readFile(join(root, "../../docs/integrations.md"), "utf8");
  const example = await readFile(join(root, "examples/openai-fetch.ts"), "utf8");
  const shown = docs.split("<!-- example: examples/openai-fetch.ts -->\n```ts\n")[1]
    ?.split("```\n")[0];
  assert.equal(shown, example);
});

test("the README shows examples/tenants.ts as it is", async () => {
  const readme = await readFile(join(root, "README.md"), "utf8");
  const example = await readFile(join(root, "examples/tenants.ts"), "utf8");
  const shown = readme.split("<!-- example: examples/tenants.ts -->\n```ts\n")[1]
    ?.split("```\n")[0];
  assert.equal(shown, example);
});

/** An example compiled to JavaScript inside the package (so `import … from "memstrata"`
 * resolves to it, as for a user), then run with `env`; its standard output. */
async function runExample(name, env) {
  const source = await readFile(join(root, `examples/${name}.ts`), "utf8");
  const js = ts.transpileModule(source, { compilerOptions: {
    module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  await mkdir(join(root, "build"), { recursive: true });
  const script = join(root, `build/${name}.mjs`);
  await writeFile(script, js);
  const { stdout } = await run(process.execPath, [script], { env: { ...process.env, ...env } });
  return stdout;
}

test("the tenants example runs against memstrata serve", async () => {
  const server = await startServer({ tenants: [], admin: "*" });
  try {
    const stdout = await runExample("tenants", { MEMSTRATA_URL: server.url,
      MEMSTRATA_ADMIN_KEY: server.adminKey });
    assert.match(stdout, /^made key [a-z0-9]{8} for shop\/\*\n/);
    assert.match(stdout, /\nshop\/alice: alice asks where the order is\n/);
    assert.match(stdout, /\nshop\/bob: bob asks where the order is\n/);
    assert.match(stdout, /\nstorefront\n$/);
    const admin = new MemoryClient({ baseUrl: server.url, apiKey: server.adminKey });
    const [key] = await admin.keys.list({ tenant: "shop/*" });
    assert.equal(typeof key.revoked_at, "bigint");
  } finally {
    await server.stop();
  }
});

test("the agent loop runs against memstrata serve", async () => {
  const server = await startServer({ tenants: ["alice"] });
  try {
    const stdout = await runExample("agent", { MEMSTRATA_URL: server.url,
      MEMSTRATA_KEY: server.keys.alice });
    assert.match(stdout, /> I'd like to visit Hualien\.\nNoted \(1 in context\): I'd like/);
    assert.match(stdout, /> Where am I going\?\nNoted \(5 in context\): Where am I going\?/);
    assert.match(stdout, /6 messages stored, the newest at \d{19} ns/);
    const mem = new MemoryClient({ baseUrl: server.url, apiKey: server.keys.alice });
    const { messages } = await mem.messages("trip");
    assert.deepEqual(messages.map((m) => m.role).reverse(),
      ["user", "assistant", "user", "assistant", "user", "assistant"]);
    assert.equal(messages.at(-1).content, "I'd like to visit Hualien.");
  } finally {
    await server.stop();
  }
});
