// Key management, scopes, tenant prefixes, limits and the operator's calls, against a real
// `memstrata serve` with an admin key made on its database (scripts/serve.mjs).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  ConflictError, ForbiddenError, InvalidInputError, MemoryClient, MemstrataError, NotFoundError,
  RateLimitedError, UnauthorizedError, toIsoString,
} from "../dist/index.js";
import { startServer } from "../scripts/serve.mjs";

let server;
let admin;

before(async () => {
  server = await startServer({ tenants: ["acme"], admin: "*" });
  admin = new MemoryClient({ baseUrl: server.url, apiKey: server.adminKey });
});

after(async () => {
  await server?.stop();
});

function client(apiKey, tenant) {
  return new MemoryClient({ baseUrl: server.url, apiKey, ...(tenant ? { tenant } : {}) });
}

describe("keys", () => {
  test("create, list and revoke, with exact times", async () => {
    const expires = 7_258_118_400_123_456_789n; // 2200-01-01T00:00:00.123456789Z
    const made = await admin.keys.create({ tenant: "globex", name: "app", scopes: ["read",
      "write"], expiresAt: expires, ratePerSecond: 50, messagesPerDay: 1000,
    storedBytes: 1_000_000 });
    assert.match(made.key, /^ms_[a-z0-9]{8}_/);
    assert.equal(made.key.split("_")[1], made.id);
    assert.deepEqual([made.tenant, made.name, made.scopes], ["globex", "app", ["read", "write"]]);
    assert.deepEqual([made.rate_per_second, made.messages_per_day, made.stored_bytes],
      [50, 1000, 1_000_000]);
    // The service keeps microseconds of an expiry.
    assert.equal(made.expires_at, 7_258_118_400_123_456_000n);
    assert.equal(made.expires_at_iso, "2200-01-01T00:00:00.123456Z");
    assert.equal(typeof made.created_at, "bigint");
    assert.equal(made.created_at.toString(), made.created_at_ns);
    assert.equal(made.revoked_at, null);

    // The new key works at once, for its own tenant only.
    const globex = client(made.key);
    const m = await globex.add("s", "user", "hello from globex");
    assert.deepEqual((await globex.sessions()).map((s) => s.id), ["s"]);
    await assert.rejects(client(server.keys.acme).read(m.id), NotFoundError);

    const listed = await admin.keys.list();
    const mine = listed.find((k) => k.id === made.id);
    assert.equal(mine.name, "app");
    assert.equal("key" in mine, false, "a listing never carries a secret");
    assert.ok(listed.some((k) => k.tenant === "acme"));
    assert.deepEqual((await admin.keys.list({ tenant: "globex" })).map((k) => k.id), [made.id]);

    const revoked = await admin.keys.revoke(made.id);
    assert.equal(typeof revoked.revoked_at, "bigint");
    assert.ok(revoked.revoked_at >= made.created_at);
    const refused = await globex.sessions().catch((e) => e);
    assert.ok(refused instanceof UnauthorizedError);
    assert.equal((await admin.keys.list({ tenant: "globex" }))[0].revoked_at,
      revoked.revoked_at);
  });

  test("defaults: read and write, no expiry, the service's limits", async () => {
    const made = await admin.keys.create({ tenant: "initech" });
    assert.deepEqual([made.scopes, made.name, made.expires_at, made.expires_at_ns],
      [["read", "write"], null, null, null]);
    assert.equal(made.rate_per_second, null);
    await admin.keys.revoke(made.id);
  });

  test("bad input is refused naming the field, and nothing is made", async () => {
    const before = (await admin.keys.list()).length;
    const scope = await admin.keys.create({ tenant: "x", scopes: ["root"] }).catch((e) => e);
    assert.ok(scope instanceof InvalidInputError);
    assert.match(scope.field, /^scopes/);
    const past = await admin.keys.create({ tenant: "x", expiresAt: new Date("2001-01-01") })
      .catch((e) => e);
    assert.ok(past instanceof InvalidInputError);
    assert.equal(past.field, "expires_at");
    const when = await admin.keys.create({ tenant: "x", expiresAt: "tomorrow" })
      .catch((e) => e);
    assert.ok(when instanceof InvalidInputError);
    assert.equal([when.field, when.status].join(), "expiresAt,");
    const rate = await admin.keys.create({ tenant: "x", ratePerSecond: 0 }).catch((e) => e);
    assert.equal(rate.field, "rate_per_second");
    const id = await admin.keys.revoke("../../sessions").catch((e) => e);
    assert.ok(id instanceof InvalidInputError);
    assert.equal([id.field, id.status].join(), "id,");
    await assert.rejects(admin.keys.revoke("zzzz9999"), NotFoundError);
    assert.equal((await admin.keys.list()).length, before);
  });

  test("scopes: memory keys cannot manage keys, the admin key cannot read memory", async () => {
    const acme = client(server.keys.acme);
    const denied = await acme.keys.list().catch((e) => e);
    assert.ok(denied instanceof ForbiddenError);
    assert.ok(denied instanceof MemstrataError);
    assert.deepEqual([denied.status, denied.type], [403, "forbidden"]);
    assert.match(denied.message, /admin/);
    await assert.rejects(acme.keys.create({ tenant: "acme" }), ForbiddenError);
    await assert.rejects(admin.sessions(), ForbiddenError);

    const reader = await admin.keys.create({ tenant: "acme", scopes: ["read"] });
    const readOnly = client(reader.key);
    assert.ok(Array.isArray(await readOnly.sessions()));
    const write = await readOnly.add("s", "user", "x").catch((e) => e);
    assert.ok(write instanceof ForbiddenError);
    assert.match(write.message, /write/);
  });
});

describe("tenant prefixes", () => {
  test("one key serves many tenants, each isolated, named per client", async () => {
    const app = await admin.keys.create({ tenant: "shop/*", name: "storefront" });
    const alice = client(app.key, "shop/alice");
    const bob = client(app.key).forTenant("shop/bob");
    assert.equal(bob.tenant, "shop/bob");
    await alice.add("cart", "user", "alice wants the red shoes");
    const m = await alice.add("cart", "user", "in size 38");
    const bobs = await bob.add("cart", "user", "bob wants a hat");
    assert.deepEqual((await alice.messages("cart")).messages.map((x) => x.content),
      ["in size 38", "alice wants the red shoes"]);
    assert.deepEqual((await bob.messages("cart")).messages.map((x) => x.content),
      ["bob wants a hat"]);
    // Ids are numbered per tenant: alice's second id is not one of bob's, and reading it
    // as bob finds nothing (never alice's message).
    assert.notEqual(m.id, bobs.id);
    await assert.rejects(bob.read(m.id), NotFoundError);
    assert.equal((await bob.read(bobs.id)).message.content, "bob wants a hat");
    assert.equal((await alice.tenantStats()).tenant, "shop/alice");

    const outside = await client(app.key, "acme").sessions().catch((e) => e);
    assert.ok(outside instanceof ForbiddenError);
    const unnamed = await client(app.key).sessions().catch((e) => e);
    assert.ok(unnamed instanceof ForbiddenError);
    assert.match(unnamed.message, /X-Memstrata-Tenant/);

    // An admin key of the prefix manages that prefix's keys and no others.
    const shopAdmin = client((await admin.keys.create({ tenant: "shop/*",
      scopes: ["admin"] })).key);
    const own = await shopAdmin.keys.list();
    assert.ok(own.length >= 2 && own.every((k) => k.tenant.startsWith("shop/")));
    const beyond = await shopAdmin.keys.create({ tenant: "acme" }).catch((e) => e);
    assert.ok(beyond instanceof InvalidInputError);
    assert.equal(beyond.field, "tenant");
    const acmeKey = (await admin.keys.list({ tenant: "acme" }))[0];
    await assert.rejects(shopAdmin.keys.revoke(acmeKey.id), NotFoundError);
    assert.equal((await shopAdmin.keys.revoke(app.id)).id, app.id);
    await assert.rejects(alice.sessions(), UnauthorizedError);
  });
});

describe("limits and conflicts", () => {
  test("a key past its rate is RateLimitedError with retryAfter", async () => {
    const slow = client((await admin.keys.create({ tenant: "slow", ratePerSecond: 0.01 })).key);
    await slow.sessions();
    const limited = await slow.sessions().catch((e) => e);
    assert.ok(limited instanceof RateLimitedError);
    assert.deepEqual([limited.status, limited.type], [429, "rate_limited"]);
    assert.ok(limited.retryAfter >= 1 && limited.retryAfter <= 100, String(limited.retryAfter));
  });

  test("a tenant past its daily messages is RateLimitedError", async () => {
    const quota = client((await admin.keys.create({ tenant: "quota",
      messagesPerDay: 1 })).key);
    await quota.add("s", "user", "the one message of the day");
    const over = await quota.add("s", "user", "one too many").catch((e) => e);
    assert.ok(over instanceof RateLimitedError);
    assert.match(over.message, /messages/);
    assert.ok(over.retryAfter >= 1);
    assert.equal((await quota.messages("s")).messages.length, 1);
  });

  test("an idempotency key reused with other content is ConflictError", async () => {
    const acme = client(server.keys.acme);
    const first = await acme.add("idem", "user", "pay 10 EUR", { key: "pay-1" });
    assert.equal((await acme.add("idem", "user", "pay 10 EUR", { key: "pay-1" })).id, first.id);
    const clash = await acme.add("idem", "user", "pay 99 EUR", { key: "pay-1" })
      .catch((e) => e);
    assert.ok(clash instanceof ConflictError);
    assert.deepEqual([clash.status, clash.type], [409, "conflict"]);
    assert.equal((await acme.messages("idem")).messages.length, 1);
  });

  test("every error carries the answer's request id", async () => {
    const error = await client(server.keys.acme).read(999_999).catch((e) => e);
    assert.ok(error instanceof NotFoundError);
    assert.match(error.requestId, /^[0-9a-zA-Z_-]{8,}$/);
  });
});

describe("operator calls", () => {
  test("healthy, ready and metrics", async () => {
    assert.equal(await admin.healthy(), true);
    assert.equal(await admin.ready(), true);
    const text = await admin.metrics();
    assert.match(text, /^# HELP /m);
    assert.match(text, /memstrata_/);
    await assert.rejects(client(server.keys.acme).metrics(), ForbiddenError);
  });

  test("toIsoString keeps microseconds", () => {
    assert.equal(toIsoString(1_700_000_000_123_456_789n), "2023-11-14T22:13:20.123456Z");
    assert.equal(toIsoString(new Date(Date.UTC(2030, 0, 2))), "2030-01-02T00:00:00.000000Z");
    assert.throws(() => toIsoString("soon", "expiresAt"), InvalidInputError);
  });
});
