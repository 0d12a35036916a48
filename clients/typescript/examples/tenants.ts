import { MemoryClient } from "memstrata";

const baseUrl = process.env.MEMSTRATA_URL ?? "http://127.0.0.1:8765";

// Once, with an admin key: one key for the application, serving every tenant under "shop/".
const admin = new MemoryClient({ baseUrl, apiKey: process.env.MEMSTRATA_ADMIN_KEY ?? "" });
const app = await admin.keys.create({ tenant: "shop/*", name: "storefront",
  scopes: ["read", "write"], ratePerSecond: 200, messagesPerDay: 5_000 });
console.log(`made key ${app.id} for ${app.tenant}`); // app.key is shown only now: keep it

// In the application: each end user is a tenant of their own, with the one key.
const mem = new MemoryClient({ baseUrl, apiKey: app.key });
for (const user of ["alice", "bob"]) {
  const memory = mem.forTenant(`shop/${user}`);
  await memory.add("support", "user", `${user} asks where the order is`);
  const { messages } = await memory.messages("support");
  console.log(`shop/${user}: ${messages.map((m) => m.content).join(" | ")}`);
}

console.log((await admin.keys.list({ tenant: "shop/*" })).map((k) => k.name).join(", "));
await admin.keys.revoke(app.id); // requests with it are refused from now on
