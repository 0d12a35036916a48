// The types of src/openapi.ts come from the live OpenAPI document of `memstrata serve`.
//   node scripts/openapi.mjs write   regenerate src/openapi.ts
//   node scripts/openapi.mjs check   fail (exit 1, with a diff) when it differs from the live one
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import openapiTS, { astToString } from "openapi-typescript";
import { startServer } from "./serve.mjs";

const target = join(dirname(fileURLToPath(import.meta.url)), "../src/openapi.ts");
const HEADER = "// Generated from the OpenAPI document of `memstrata serve` by scripts/openapi.mjs:\n"
  + "// do not edit; run `npm run types` after the service's API changes.\n\n";

async function generate() {
  const server = await startServer({ tenants: [] });
  try {
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    delete doc.info.version; // the package's version is not part of the API
    return HEADER + astToString(await openapiTS(doc));
  } finally {
    await server.stop();
  }
}

const mode = process.argv[2];
if (mode !== "write" && mode !== "check") {
  console.error("usage: node scripts/openapi.mjs write|check");
  process.exit(2);
}
const fresh = await generate();
if (mode === "write") {
  await writeFile(target, fresh);
  console.log(`wrote ${target}`);
} else {
  const kept = await readFile(target, "utf8");
  if (kept !== fresh) {
    const live = `${target}.live`;
    await writeFile(live, fresh);
    try {
      execFileSync("diff", ["-u", target, live], { stdio: "inherit" });
    } catch { /* diff exits 1 when the files differ: that is the point */ }
    console.error("src/openapi.ts differs from the live OpenAPI document (diff above, live copy "
      + "in src/openapi.ts.live): run `npm run types` and commit the result");
    process.exit(1);
  }
  console.log("src/openapi.ts matches the live OpenAPI document");
}
