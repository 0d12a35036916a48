// The inspector's shell: signing in and out, and the hash routes that pick a view.
//   #/sessions            every session of the key's tenant
//   #/s/<session>         one session: its summary and timeline
//   #/search?session=…    search, the whole tenant or one session
//   #/errors              the error memory

import { ApiError, forgetKey, get, keyLabel, storedKey, storeKey } from "./api.js";
import { fill, h } from "./dom.js";
import { showErrors } from "./errors.js";
import { showSearch } from "./search.js";
import { showSession } from "./session.js";
import { showSessions } from "./sessions.js";

const $ = (id) => document.getElementById(id);

let navigation = 0;

function signedIn() {
  return Boolean(storedKey());
}

function showSignIn(message) {
  $("view").hidden = true;
  $("nav").hidden = true;
  $("who").hidden = true;
  $("sign-in").hidden = false;
  const error = $("sign-in-error");
  error.hidden = !message;
  error.textContent = message || "";
  $("key").focus();
}

function signOut(message) {
  navigation += 1; // what the old key was still loading is dropped when it arrives
  forgetKey();
  fill($("view"));
  $("key").value = "";
  showSignIn(message);
}

async function signIn(event) {
  event.preventDefault();
  const key = $("key").value.trim();
  const button = event.target.querySelector("button");
  button.disabled = true;
  try {
    // Any authenticated call proves the key; the session list is what the page shows first.
    await get("/v1/sessions", {}, key);
    storeKey(key);
    $("key").value = "";
    if (!location.hash || location.hash === "#/") location.hash = "#/sessions";
    else route();
  } catch (err) {
    const refused = err instanceof ApiError && err.status === 401;
    showSignIn(refused ? `The server refused this key: ${err.message}`
      : `Could not sign in: ${err instanceof ApiError ? err.describe() : err}`);
  } finally {
    button.disabled = false;
  }
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, query = ""] = raw.split("?");
  const parts = path.split("/").map(decodeURIComponent);
  return { parts, params: new URLSearchParams(query) };
}

function markSection(section) {
  for (const link of $("nav").querySelectorAll("a")) {
    if (link.dataset.section === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** What a view is handed: where to draw, whether it is still current, and how to fail. */
function context(view) {
  const ticket = ++navigation;
  return {
    view,
    alive: () => ticket === navigation,
    fail(err) {
      if (ticket !== navigation) return;
      if (err instanceof ApiError && err.status === 401) {
        signOut(`Signed out: the server refused the key (${err.message}).`);
        return;
      }
      const text = err instanceof ApiError ? err.describe() : String(err);
      // Parts of a view load side by side and may fail for the same reason: say it once.
      const shown = [...view.querySelectorAll(":scope > .error")].map((e) => e.textContent);
      if (!shown.includes(text)) view.prepend(h("p", { class: "error", role: "alert" }, text));
    },
    /** Take down the error banners of an earlier attempt. */
    clear() {
      for (const banner of view.querySelectorAll(":scope > .error")) banner.remove();
    },
  };
}

function route() {
  if (!signedIn()) {
    showSignIn();
    return;
  }
  $("sign-in").hidden = true;
  $("nav").hidden = false;
  $("who").hidden = false;
  $("key-label").textContent = keyLabel(storedKey());
  const view = $("view");
  view.hidden = false;
  fill(view);
  const { parts, params } = parseHash();
  const ctx = context(view);
  const [section, ...rest] = parts;
  if (section === "s" && rest.length) {
    markSection("sessions");
    showSession(ctx, rest.join("/"));
  } else if (section === "search") {
    markSection("search");
    showSearch(ctx, params);
  } else if (section === "errors") {
    markSection("errors");
    showErrors(ctx);
  } else {
    markSection("sessions");
    showSessions(ctx);
  }
  window.scrollTo(0, 0);
}

$("sign-in-form").addEventListener("submit", signIn);
$("sign-out").addEventListener("click", () => signOut("Signed out."));
window.addEventListener("hashchange", route);
route();
