// Search: one session or the whole tenant. The form's values live in the address
// (#/search?q=…), so a search can be linked to and the back button returns to it.

import { get, seg } from "./api.js";
import { fill, h, plural } from "./dom.js";
import { messageItem } from "./messages.js";

const MATCHES = [["", "default (hybrid, or keyword without an embedder)"], ["hybrid", "hybrid"],
  ["semantic", "semantic"], ["keyword", "keyword"]];
const RANGES = [["all", "any time"], ["1d", "last day"], ["7d", "last 7 days"],
  ["1m", "last 30 days"], ["1y", "last year"]];

function select(name, label, options, chosen) {
  const id = `search-${name}`;
  return h("div", { class: "control" }, h("label", { for: id }, label),
    h("select", { id, name }, options.map(([value, text]) =>
      h("option", { value, selected: value === chosen }, text))));
}

function form(params, onSearch) {
  const scope = select("session", "In", [["", "all sessions"]], params.get("session") || "");
  const includeWindow = params.get("window") !== "exclude";
  const el = h("form", { class: "search-form", role: "search" },
    h("div", { class: "control grow" }, h("label", { for: "search-q" }, "Words or a question"),
      h("input", { id: "search-q", name: "q", type: "search", required: true,
        value: params.get("q") || "", placeholder: "e.g. train to Hualien" })),
    scope,
    select("match", "Match", MATCHES, params.get("match") || ""),
    select("time_range", "Time", RANGES, params.get("time_range") || "all"),
    h("div", { class: "control check" },
      h("input", { id: "search-window", name: "window", type: "checkbox", checked: includeWindow }),
      h("label", { for: "search-window" }, "include the context window")),
    h("div", { class: "control" }, h("button", { type: "submit" }, "Search")));
  el.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(el);
    const next = new URLSearchParams();
    for (const key of ["q", "session", "match", "time_range"]) {
      const value = String(data.get(key) || "").trim();
      if (value) next.set(key, value);
    }
    if (!data.get("window")) next.set("window", "exclude");
    onSearch(next);
  });
  return el;
}

async function fillScopes(ctx, form, chosen) {
  const scope = form.querySelector("#search-session");
  try {
    const { sessions } = await get("/v1/sessions");
    if (!ctx.alive()) return;
    const ids = sessions.map((s) => s.id);
    // A session named in the address but not listed (removed since) stays choosable.
    if (chosen && !ids.includes(chosen)) ids.unshift(chosen);
    scope.append(...ids.map((id) => h("option", { value: id, selected: id === chosen }, id)));
  } catch (err) {
    ctx.fail(err);
  }
}

function hitItem(hit, showSession) {
  const extra = [];
  if (showSession) {
    extra.push(h("a", { class: "hit-session", href: `#/s/${seg(hit.message.session)}` },
      hit.message.session));
  }
  if (hit.matched) {
    extra.push(h("span", { class: "score", title: `source: ${hit.source}` },
      `score ${Number(hit.score).toFixed(3)}`));
    if (hit.rank !== null && hit.rank !== undefined) {
      extra.push(h("span", { class: "rank" }, `rank ${hit.rank}`));
    }
    extra.push(h("span", { class: "source muted" }, hit.source));
  } else {
    extra.push(h("span", { class: "context-label" }, "context"));
  }
  const item = messageItem(hit.message, { extra });
  item.classList.add("hit", hit.matched ? "matched" : "context");
  return item;
}

function results(answer, query, params) {
  const hits = answer.hits || [];
  const matched = hits.filter((hit) => hit.matched).length;
  const parts = [];
  if (answer.status === "indexing_pending") {
    parts.push(h("p", { class: "notice" }, "Some messages are still waiting to be indexed; " +
      "a semantic search does not see them yet."));
  }
  if (answer.status === "no_match" || matched === 0) {
    parts.push(h("div", { class: "no-match", role: "status" },
      h("strong", {}, "No match"),
      h("p", {}, `Nothing matches “${query}” (${params.get("time_range") || "all"} time, ` +
        `${params.get("session") ? `session ${params.get("session")}` : "all sessions"}).`)));
    return parts;
  }
  const neighbours = plural(hits.length - matched, "neighbour");
  parts.push(h("p", { class: "muted", role: "status" },
    `${plural(matched, "match", "matches")}, shown with ${neighbours} for context, oldest first.`));
  const list = h("ol", { class: "hits" });
  let session = null;
  const showSession = !params.get("session");
  for (const hit of hits) {
    if (showSession && hit.message.session !== session && session !== null) {
      list.append(h("li", { class: "divider", "aria-hidden": "true" }));
    }
    session = hit.message.session;
    list.append(hitItem(hit, showSession));
  }
  parts.push(list);
  return parts;
}

async function run(ctx, params, out) {
  const query = params.get("q");
  const session = params.get("session");
  const path = session ? `/v1/sessions/${seg(session)}/search` : "/v1/search";
  const args = { q: query, match: params.get("match"), time_range: params.get("time_range") };
  if (session) args.exclude_window = params.get("window") === "exclude" ? "true" : "false";
  ctx.clear();
  fill(out, h("p", { class: "muted" }, "Searching…"));
  try {
    const answer = await get(path, args);
    if (ctx.alive()) fill(out, results(answer, query, params));
  } catch (err) {
    fill(out);
    ctx.fail(err);
  }
}

export function showSearch(ctx, params) {
  const out = h("div", { class: "results", "aria-live": "polite" });
  const searchForm = form(params, (next) => {
    const target = `#/search?${next}`;
    // The same address again (searching twice) does not fire hashchange: run it here.
    if (location.hash === target) run(ctx, next, out);
    else location.hash = target;
  });
  fill(ctx.view, h("h1", {}, "Search"), searchForm, out);
  fillScopes(ctx, searchForm, params.get("session") || "");
  if (params.get("q")) run(ctx, params, out);
  else searchForm.querySelector("#search-q").focus();
}
