// The rolling summary of a session, as summary/_schema.py shapes it:
//   key_decisions       ["Do: …" | "Don't: …"], oldest first
//   past_discussions    [{topic, description, direction, last_discussed}]
//   current_discussion  {topic, description, perspectives: [str], direction} or {}
// A digest (no LLM configured) is {"text": …} instead.

import { count, h, timeEl } from "./dom.js";

const DO = "Do: ";
const DONT = "Don't: ";

function decision(entry) {
  const text = String(entry);
  let kind = null;
  let rest = text;
  if (text.startsWith(DONT)) [kind, rest] = ["dont", text.slice(DONT.length)];
  else if (text.startsWith(DO)) [kind, rest] = ["do", text.slice(DO.length)];
  const badge = kind === "do" ? "Do" : kind === "dont" ? "Don't" : "Note";
  return h("li", { class: `decision ${kind || "note"}` },
    h("span", { class: "badge" }, badge), h("span", {}, rest));
}

function field(label, value) {
  if (!value) return null;
  return h("div", { class: "field" }, h("span", { class: "label" }, label), h("span", {}, value));
}

function discussion(entry, heading = "h4") {
  const perspectives = Array.isArray(entry.perspectives) ? entry.perspectives : [];
  return h("article", { class: "discussion" },
    h(heading, {}, entry.topic || "(no topic)"),
    entry.description ? h("p", {}, entry.description) : null,
    perspectives.length
      ? h("ul", { class: "perspectives" }, perspectives.map((p) => h("li", {}, p))) : null,
    field("Direction", entry.direction),
    field("Last discussed", entry.last_discussed));
}

function section(title, body, empty) {
  return h("section", { class: "summary-part" }, h("h3", {}, title),
    body || h("p", { class: "muted" }, empty));
}

function structured(body) {
  const decisions = Array.isArray(body.key_decisions) ? body.key_decisions : [];
  const past = Array.isArray(body.past_discussions) ? body.past_discussions : [];
  const current = body.current_discussion && typeof body.current_discussion === "object"
    ? body.current_discussion : {};
  const hasCurrent = Boolean(current.topic || current.description);
  return [
    section("Decisions", decisions.length
      ? h("ul", { class: "decisions" }, decisions.map(decision)) : null, "No decisions yet."),
    section("Current discussion", hasCurrent ? discussion(current) : null, "None."),
    section("Past discussions", past.length
      ? h("div", { class: "past" }, past.map((p) => discussion(p))) : null, "None yet."),
  ];
}

function tally(data) {
  const parts = [
    h("span", {}, "kind ", h("strong", {}, data.kind || "—")),
    h("span", {}, "cursor ", h("strong", { class: "cursor" },
      data.cursor === null || data.cursor === undefined ? "—" : `#${data.cursor}`)),
    h("span", {}, "tokens ", h("strong", { class: "tokens" },
      `${count(data.tokens_in)} in · ${count(data.tokens_out)} out`)),
    data.created_at ? h("span", {}, "written ", timeEl(data.created_at)) : null,
  ];
  return h("p", { class: "tally" }, parts);
}

/** The summary panel for a `GET /v1/sessions/{s}/summary` answer. */
export function summaryPanel(data) {
  const body = data && data.summary;
  if (!body) {
    return [h("p", { class: "muted empty" },
      "No summary yet: the summary covers what has left the context window, " +
      "once a summary run (scheduled, the worker, or summarize) has written one."),
    data ? tally(data) : null];
  }
  const isDigest = typeof body.text === "string" && !("key_decisions" in body);
  const content = isDigest
    ? [h("p", { class: "muted" }, "A digest of older text (no summary model is configured)."),
      h("pre", { class: "digest" }, body.text)]
    : structured(body);
  return [tally(data), content];
}
