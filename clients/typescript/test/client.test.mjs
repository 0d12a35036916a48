// The client against a real `memstrata serve` (scripts/serve.mjs starts it): every call, its
// exact times and its typed errors.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { rm } from "node:fs/promises";
import {
  Context, DiskFullError, InvalidInputError, MemoryClient, MemstrataError, NotFoundError,
  ServerError, StoreError, UnauthorizedError, UnreachableError, nsToDate, toNsString,
} from "../dist/index.js";
import { startServer } from "../scripts/serve.mjs";

// Odd in its last digits: a JavaScript number cannot hold it (2^53 is about 9.007e15).
const AT = 1_700_000_000_123_456_789n;

let server;
let mem;
let other;

before(async () => {
  // A small window, so a summary has something to summarise.
  server = await startServer({ tenants: ["acme", "globex"],
    env: { MEMSTRATA_WINDOW_MESSAGES: "4" } });
  mem = new MemoryClient({ baseUrl: server.url, apiKey: server.keys.acme });
  other = new MemoryClient({ baseUrl: `${server.url}/`, apiKey: server.keys.globex });
});

after(async () => {
  await server?.stop();
});

async function raw(path, init = {}) {
  const response = await fetch(server.url + path, { ...init,
    headers: { Authorization: `Bearer ${server.keys.acme}`, ...init.headers } });
  return response.json();
}

describe("messages", () => {
  test("add keeps the exact time, given as bigint, string or Date", async () => {
    assert.equal(Number.isSafeInteger(Number(AT)), false);
    const m = await mem.add("trip", "user", "Take the train to Hualien.",
      { at: AT, sender: "Mei", meta: { lang: "en" }, key: "k1" });
    assert.equal(m.at, AT);
    assert.equal(m.at_ns, AT.toString());
    assert.equal(typeof m.at, "bigint");
    assert.deepEqual([m.session, m.role, m.sender, m.meta], ["trip", "user", "Mei", { lang: "en" }]);
    const again = await mem.add("trip", "user", "Take the train to Hualien.", { key: "k1" });
    assert.equal(again.id, m.id);
    const s = await mem.add("trip", "assistant", "Booked.", { at: (AT + 1n).toString() });
    assert.equal(s.at, AT + 1n);
    const d = await mem.add("dates", "user", "x", { at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)) });
    assert.equal(d.at, 1_704_164_645_006_000_000n);
    assert.equal(nsToDate(d.at).toISOString(), "2024-01-02T03:04:05.006Z");
    const read = await mem.read(m.id, { after: 1 });
    assert.equal(read.message.at, AT);
    assert.deepEqual(read.after.map((x) => x.at), [AT + 1n]);
    const page = await mem.messages("trip");
    assert.deepEqual(page.messages.map((x) => x.at), [AT + 1n, AT]);
    assert.equal(page.nextBeforeId, null);
  });

  test("addMany stores every item, or none and names the bad one", async () => {
    const stored = await mem.addMany("batch", [
      { role: "user", content: "one", at: AT },
      { role: "assistant", content: "two" },
    ]);
    assert.deepEqual(stored.map((m) => m.content), ["one", "two"]);
    assert.equal(stored[0].at, AT);
    const failed = await mem.addMany("batch", [
      { role: "user", content: "three" },
      { role: "robot", content: "four" },
    ]).catch((e) => e);
    assert.ok(failed instanceof InvalidInputError);
    assert.ok(failed instanceof MemstrataError);
    assert.equal(failed.status, 422);
    assert.equal(failed.field, "items[1].role");
    assert.equal(failed.body.error.type, "invalid_input");
    assert.equal((await mem.messages("batch")).messages.length, 2);
  });

  test("paging follows nextBeforeId", async () => {
    await mem.addMany("pages", [1, 2, 3, 4, 5].map((i) => ({ role: "user", content: `m${i}` })));
    const first = await mem.messages("pages", { limit: 2 });
    assert.deepEqual(first.messages.map((m) => m.content), ["m5", "m4"]);
    const second = await mem.messages("pages", { limit: 2, beforeId: first.nextBeforeId });
    assert.deepEqual(second.messages.map((m) => m.content), ["m3", "m2"]);
  });

  test("a bad time is refused before any request, naming the field", async () => {
    for (const bad of ["soon", "-5", "1.7e18", new Date(Number.NaN), -1n, 2n ** 63n]) {
      const error = await mem.add("never", "user", "x", { at: bad }).catch((e) => e);
      assert.ok(error instanceof InvalidInputError, String(bad));
      assert.equal(error.field, "at");
      assert.equal(error.status, undefined);
    }
    assert.throws(() => toNsString(1.7e18), InvalidInputError);
    const error = await mem.addMany("never", [{ role: "user", content: "x", at: "x" }])
      .catch((e) => e);
    assert.equal(error.field, "items[0].at");
    assert.equal((await mem.messages("never")).messages.length, 0);
  });

  test("forget removes a message everywhere", async () => {
    const m = await mem.add("forget", "user", "a secret");
    await mem.forget(m.id);
    const error = await mem.read(m.id).catch((e) => e);
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.type, "not_found");
    assert.equal(error.status, 404);
  });
});

describe("context and search", () => {
  test("toOpenAI and toAnthropic give what the service's own formats give", async () => {
    const lines = [
      JSON.stringify({ type: "message", role: "user", content: "Book the train." }),
      JSON.stringify({ type: "message", role: "assistant", content: "Which day?" }),
      JSON.stringify({ type: "summary", kind: "digest", body: { text: "Going to Hualien." } }),
    ];
    assert.equal(await mem.importJsonl("ctx", lines), 2);
    const ctx = await mem.context("ctx");
    assert.ok(ctx instanceof Context);
    assert.equal(ctx.summaryKind, "digest");
    assert.ok(ctx.systemPrompt.length > 0);
    assert.match(ctx.turnContext, /Going to Hualien/);
    const openai = await raw("/v1/sessions/ctx/context?format=openai");
    assert.deepEqual(ctx.toOpenAI(), openai.messages);
    const anthropic = await raw("/v1/sessions/ctx/context?format=anthropic");
    assert.deepEqual(ctx.toAnthropic(), { system: anthropic.system_prompt,
      messages: anthropic.messages });
    const own = ctx.toOpenAI("You plan trips.");
    assert.equal(own[0].role, "system");
    assert.equal(own[0].content, `You plan trips.\n\n${ctx.systemPrompt}`);
    assert.equal(ctx.toAnthropic("You plan trips.").system, own[0].content);
    const window = await mem.window("ctx");
    assert.deepEqual(window.map((m) => m.content), ["Book the train.", "Which day?"]);
    assert.equal(typeof window[0].at, "bigint");
  });

  test("a session without summary sends only the window", async () => {
    await mem.add("plain-ctx", "user", "hello");
    const ctx = await mem.context("plain-ctx");
    assert.equal(ctx.summary, null);
    assert.equal(ctx.unsummarized, 0);
    assert.equal(ctx.toOpenAI().length, 1);
    assert.match(ctx.toOpenAI()[0].content, /hello$/);
    assert.deepEqual(ctx.toAnthropic().system, "");
  });

  test("search finds messages in a session and across the tenant", async () => {
    await mem.addMany("search-a", [{ role: "user", content: "The ferry to Green Island", at: AT },
      { role: "assistant", content: "It leaves at nine." }]);
    await mem.add("search-b", "user", "Another ferry question");
    const one = await mem.search("ferry", { session: "search-a", excludeWindow: false,
      match: "keyword" });
    assert.equal(one.status, "ok");
    const matched = one.hits.filter((h) => h.matched);
    assert.deepEqual(matched.map((h) => h.message.content), ["The ferry to Green Island"]);
    assert.equal(matched[0].message.at, AT);
    const all = await mem.search("ferry", { excludeWindow: false, match: "keyword" });
    assert.deepEqual(new Set(all.hits.filter((h) => h.matched).map((h) => h.message.session)),
      new Set(["search-a", "search-b"]));
    const none = await mem.search("zeppelin", { match: "keyword" });
    assert.deepEqual([none.hits, none.status], [[], "no_match"]);
  });
});

describe("sessions", () => {
  test("list, stats, summary, summarize, reset and remove", async () => {
    const steps = ["one", "two", "three", "four", "five", "six", "seven", "eight"];
    await mem.addMany("life", steps.map((word, i) => ({ role: i % 2 ? "assistant" : "user",
      content: `plan step ${word}`, at: AT + BigInt(i) })));
    const listed = (await mem.sessions()).find((s) => s.id === "life");
    assert.deepEqual([listed.messages, listed.first_at, listed.last_at], [8, AT, AT + 7n]);
    const stats = await mem.stats("life");
    assert.deepEqual([stats.session, stats.messages], ["life", 8]);
    const tenant = await mem.tenantStats();
    assert.equal(tenant.tenant, "acme");
    assert.ok(tenant.messages >= 8);
    const none = await mem.summary("life");
    assert.deepEqual([none.summary, none.created_at], [null, null]);
    assert.equal((await mem.context("life")).unsummarized, 4); // older than the window of 4
    const made = await mem.summarize("life");
    assert.equal((await mem.context("life")).unsummarized, 0);
    assert.match(JSON.stringify(made), /plan step one/);
    const summary = await mem.summary("life");
    assert.equal(summary.kind, "digest");
    assert.equal(typeof summary.created_at, "bigint");
    assert.equal(summary.created_at.toString(), summary.created_at_ns);
    await mem.reset("life");
    assert.equal((await mem.messages("life")).messages.length, 0);
    assert.equal((await mem.summary("life")).kind, "digest");
    await mem.remove("life");
    const gone = await mem.stats("life").catch((e) => e);
    assert.ok(gone instanceof NotFoundError);
    await assert.rejects(mem.remove("life"), NotFoundError);
  });

  test("another tenant's key sees nothing of this one", async () => {
    const m = await mem.add("private", "user", "acme's plans");
    assert.deepEqual((await other.sessions()).map((s) => s.id), []);
    await assert.rejects(other.read(m.id), NotFoundError);
    assert.deepEqual((await other.search("plans", { excludeWindow: false })).hits, []);
  });
});

describe("import and export", () => {
  test("JSONL text round-trips exactly", async () => {
    await mem.addMany("export-src", [{ role: "user", content: "first", at: AT, sender: "Mei" },
      { role: "assistant", content: "second", at: AT + 3n }]);
    const text = await mem.exportJsonl("export-src");
    assert.equal(text.trim().split("\n").length, 2);
    assert.ok(text.includes(`"at": ${AT}`));
    assert.equal(await mem.importJsonl("export-dst", text), 2);
    const copied = (await mem.messages("export-dst")).messages;
    assert.deepEqual(copied.map((m) => [m.content, m.at, m.sender]),
      [["second", AT + 3n, null], ["first", AT, "Mei"]]);
  });

  test("records with bigint times are written exactly; a bad one stores nothing", async () => {
    const n = await mem.importJsonl("import-records", [
      { type: "message", role: "user", content: "exact", at: AT + 9n },
    ]);
    assert.equal(n, 1);
    assert.equal((await mem.messages("import-records")).messages[0].at, AT + 9n);
    const error = await mem.importJsonl("import-bad", [
      { type: "message", role: "user", content: "fine" },
      { type: "message", role: "nobody", content: "bad" },
    ]).catch((e) => e);
    assert.ok(error instanceof InvalidInputError);
    assert.match(error.field, /line 2/);
    await assert.rejects(mem.stats("import-bad"), NotFoundError);
  });

  test("a history array imports too", async () => {
    const n = await mem.importHistory("history", [
      { role: "user", content: "hi", sendAt: 1_700_000_000_000_000_001n, sender: "Mei" },
      { role: "assistant", content: "hello" },
    ]);
    assert.equal(n, 2);
    const page = (await mem.messages("history")).messages;
    assert.equal(page[1].at, 1_700_000_000_000_000_001n);
  });
});

describe("error memory", () => {
  test("write, list, search, hint, get and delete", async () => {
    const r = await mem.errors.write({ tool_name: "grep", keywords: ["regex"],
      symptom: "grep: Unmatched ( or \\(", action: "escape the parenthesis", cause: null });
    assert.equal(r.tool_name, "grep");
    assert.equal(typeof r.created_at, "bigint");
    assert.equal(r.expires_at.toString(), r.expires_at_ns);
    assert.deepEqual((await mem.errors.list({ tool: "grep" })).map((x) => x.id), [r.id]);
    assert.deepEqual((await mem.errors.search("Unmatched", { tool: "grep" })).map((x) => x.id),
      [r.id]);
    assert.match(await mem.errors.hint("grep", "grep: Unmatched ( or \\("), /escape/);
    assert.equal((await mem.errors.get(r.id.slice(0, 8))).id, r.id);
    assert.deepEqual(await other.errors.list(), []);
    await mem.errors.delete(r.id);
    await assert.rejects(mem.errors.get(r.id), NotFoundError);
    const bad = await mem.errors.write({ tool_name: "grep", symptom: "x", action: "y",
      outcome: "maybe" }).catch((e) => e);
    assert.ok(bad instanceof InvalidInputError);
    assert.equal(bad.field, "outcome");
  });
});

describe("failures", () => {
  test("a revoked or unknown key is UnauthorizedError", async () => {
    const stranger = new MemoryClient({ baseUrl: server.url, apiKey: "ms_nobody_nothing" });
    const error = await stranger.sessions().catch((e) => e);
    assert.ok(error instanceof UnauthorizedError);
    assert.equal(error.status, 401);
    assert.equal(error.body.error.type, "unauthorized");
  });

  test("no server is UnreachableError", async () => {
    const nowhere = new MemoryClient({ baseUrl: "http://127.0.0.1:9", apiKey: "k",
      timeoutMs: 2000 });
    const error = await nowhere.sessions().catch((e) => e);
    assert.ok(error instanceof UnreachableError);
    assert.equal(error.status, undefined);
    assert.equal(await nowhere.ready(), false);
    assert.equal(await mem.ready(), true);
  });

  test("a database that fails under the service is StoreError", async () => {
    const own = await startServer({ tenants: ["acme"] });
    try {
      const client = new MemoryClient({ baseUrl: own.url, apiKey: own.keys.acme });
      await client.add("s", "user", "stored before");
      for (const suffix of ["", "-wal", "-shm"]) await rm(own.db + suffix, { force: true });
      const error = await client.add("s", "user", "to a file that is gone").catch((e) => e);
      assert.ok(error instanceof StoreError, String(error));
      assert.ok(!(error instanceof ServerError) && !(error instanceof DiskFullError));
      assert.equal(error.status, 500);
      assert.equal(error.type, "store_error");
      assert.match(error.requestId, /^[0-9a-f]{32}$/);
      assert.ok(error.message.includes(error.requestId));
      assert.ok(new DiskFullError("full") instanceof StoreError); // as in the Python tree
    } finally {
      await own.stop();
    }
  });
});
