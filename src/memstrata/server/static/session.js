// One session: its rolling summary beside its timeline, newest first, paged with before_id.

import { get, seg } from "./api.js";
import { count, fill, h, plural } from "./dom.js";
import { messageItem } from "./messages.js";
import { summaryPanel } from "./summary.js";

const PAGE = 20;

// A message at or below the summary's cursor has been folded into the summary.
function markSummarised(item, cursor) {
  const inside = cursor !== null && Number(item.dataset.id) <= cursor;
  item.classList.toggle("summarised", inside);
  const tag = item.querySelector(".in-summary");
  if (inside && !tag) {
    item.querySelector(".msg-head").append(h("span", { class: "tag in-summary" }, "in summary"));
  } else if (!inside && tag) {
    tag.remove();
  }
}

function statsLine(stats) {
  const parts = [plural(stats.messages, "message"), `${count(stats.hot_messages)} hot`];
  if (stats.index_backlog) parts.push(`${count(stats.index_backlog)} waiting to be indexed`);
  const elsewhere = (stats.tenant_backlog || 0) - (stats.index_backlog || 0);
  if (elsewhere > 0) parts.push(`${count(elsewhere)} more waiting in other sessions`);
  const failed = stats.last_error
    ? h("span", { class: "error-inline" }, ` · last summary error: ${stats.last_error}`) : null;
  return h("p", { class: "muted stats" }, parts.join(" · "), failed);
}

async function loadStats(ctx, session, slot) {
  try {
    const stats = await get(`/v1/sessions/${seg(session)}`);
    if (ctx.alive()) fill(slot, statsLine(stats));
  } catch (err) {
    ctx.fail(err);
  }
}

async function loadSummary(ctx, session, panel, state) {
  try {
    const data = await get(`/v1/sessions/${seg(session)}/summary`);
    if (!ctx.alive()) return;
    fill(panel, summaryPanel(data));
    state.cursor = data.summary && typeof data.cursor === "number" ? data.cursor : null;
    for (const item of state.list.children) markSummarised(item, state.cursor);
  } catch (err) {
    fill(panel, h("p", { class: "muted" }, "The summary could not be read."));
    ctx.fail(err);
  }
}

async function loadPage(ctx, session, state) {
  const { list, more } = state;
  more.disabled = true;
  more.textContent = "Loading…";
  try {
    const page = await get(`/v1/sessions/${seg(session)}/messages`,
      { limit: PAGE, before_id: state.before });
    if (!ctx.alive()) return;
    for (const m of page.messages) {
      const item = messageItem(m);
      markSummarised(item, state.cursor);
      list.append(item);
    }
    state.before = page.next_before_id;
    state.shown += page.messages.length;
    state.note.textContent = `${plural(state.shown, "message")} shown, newest first`;
    const done = state.before === null || state.before === undefined;
    more.hidden = done;
    state.end.hidden = !done;
  } catch (err) {
    ctx.fail(err);
  } finally {
    more.disabled = false;
    more.textContent = "Older messages";
  }
}

export function showSession(ctx, session) {
  const stats = h("div", {});
  const panel = h("div", { class: "summary", "aria-live": "polite" },
    h("p", { class: "muted" }, "Loading the summary…"));
  const state = {
    cursor: null,
    before: null,
    shown: 0,
    list: h("ol", { class: "timeline", "aria-label": "Messages, newest first" }),
    more: h("button", { type: "button", class: "more" }, "Older messages"),
    note: h("p", { class: "muted" }),
    end: h("p", { class: "muted end", hidden: true }, "The beginning of the session."),
  };
  state.more.addEventListener("click", () => loadPage(ctx, session, state));
  fill(ctx.view,
    h("p", { class: "crumbs" }, h("a", { href: "#/sessions" }, "Sessions"), " / "),
    h("h1", { class: "session-title" }, session),
    stats,
    h("p", {}, h("a", { href: `#/search?session=${seg(session)}` }, "Search this session")),
    h("div", { class: "columns" },
      h("section", { class: "panel summary-panel" }, h("h2", {}, "Rolling summary"), panel),
      h("section", { class: "panel timeline-panel" }, h("h2", {}, "Timeline"), state.note,
        state.list, state.more, state.end)));
  loadStats(ctx, session, stats);
  // The summary's cursor marks which messages it covers, so it is asked for first; the
  // timeline does not wait for it (the marks are applied to whatever has arrived).
  loadSummary(ctx, session, panel, state);
  loadPage(ctx, session, state);
}
