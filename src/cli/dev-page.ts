// The page `iceberg-bot dev` serves: the incident channel drawn the way Slack draws it (threads,
// Block Kit sections, context, buttons, modals, ephemeral messages, edited cards, shared pictures,
// date tokens in the reader's local time) from the Slack stand-in's store, polled every second. Every control posts to the dev server, which sends the
// signed request Slack would send into the bot. Plain HTML and script, no build step.

export const DEV_PAGE = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>iceberg-bot dev: #incidents</title>
<style>
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1d1c1d; background: #fff; }
  header { background: #3f0e40; color: #fff; padding: 10px 16px; display: flex; flex-wrap: wrap; gap: 14px; align-items: center; }
  header h1 { font-size: 17px; margin: 0 12px 0 0; }
  header label { font-size: 13px; opacity: .9; }
  header select, header button { font: inherit; font-size: 13px; padding: 4px 8px; border-radius: 4px; border: 1px solid #bbb; }
  header button { background: #fff; cursor: pointer; }
  #clock { font-size: 13px; opacity: .85; }
  main { max-width: 980px; margin: 0 auto; padding: 8px 16px 120px; }
  .msg { display: flex; gap: 10px; padding: 8px 6px; border-radius: 6px; }
  .msg:hover { background: #f8f8f8; }
  .avatar { width: 36px; height: 36px; border-radius: 6px; background: #2eb67d; color: #fff; font-weight: 700; display: flex; align-items: center; justify-content: center; flex: none; }
  .avatar.me { background: #1264a3; }
  .body { flex: 1; min-width: 0; }
  .who { font-weight: 900; } .who .app { font-size: 10px; font-weight: 700; background: #ddd; color: #555; padding: 1px 4px; border-radius: 3px; margin-left: 4px; }
  .meta { color: #616061; font-size: 12px; margin-left: 6px; }
  .edited { color: #616061; font-size: 12px; }
  .files figure { margin: 6px 0; }
  .files img { max-width: 360px; width: 100%; border: 1px solid #ddd; border-radius: 6px; display: block; }
  .files figcaption { color: #616061; font-size: 12px; }
  time.date { border-bottom: 1px dotted #999; }
  .thread { margin-left: 46px; border-left: 3px solid #e8e8e8; padding-left: 8px; }
  .replies { color: #1264a3; font-size: 13px; font-weight: 700; margin: 0 0 4px 46px; }
  .ephemeral { background: #f4f9ff; border: 1px dashed #9cc3e6; }
  .only-you { color: #616061; font-size: 12px; font-style: italic; }
  .block { margin: 4px 0; }
  .block.header { font-size: 18px; font-weight: 900; }
  .block.context { color: #616061; font-size: 12.5px; display: flex; gap: 8px; flex-wrap: wrap; }
  .fields { display: grid; grid-template-columns: 1fr 1fr; gap: 4px 16px; margin-top: 4px; }
  .section-row { display: flex; gap: 12px; justify-content: space-between; align-items: flex-start; }
  hr { border: none; border-top: 1px solid #e8e8e8; margin: 8px 0; }
  pre { background: #f8f8f8; border: 1px solid #e1e1e1; border-radius: 4px; padding: 8px; white-space: pre-wrap; font: 12.5px/1.4 Menlo, Consolas, monospace; margin: 4px 0; }
  code { background: #f6f6f6; border: 1px solid #e1e1e1; border-radius: 3px; padding: 0 3px; color: #c01343; font: 12.5px Menlo, Consolas, monospace; }
  .mention { background: #e8f5fa; color: #1264a3; border-radius: 3px; padding: 0 2px; }
  .actions { display: flex; gap: 8px; flex-wrap: wrap; margin: 6px 0; }
  button.slack { font: inherit; font-size: 13px; font-weight: 700; padding: 4px 12px; border-radius: 4px; border: 1px solid #bbb; background: #fff; cursor: pointer; }
  button.slack.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
  button.slack.danger { background: #e01e5a; border-color: #e01e5a; color: #fff; }
  #composer { position: fixed; bottom: 0; left: 0; right: 0; background: #fff; border-top: 1px solid #ddd; padding: 10px 16px; }
  #composer form { max-width: 980px; margin: 0 auto; display: flex; gap: 8px; }
  #composer input { flex: 1; font: inherit; padding: 8px; border: 1px solid #bbb; border-radius: 6px; }
  #overlay { position: fixed; inset: 0; background: rgba(0,0,0,.45); display: none; align-items: flex-start; justify-content: center; padding-top: 60px; }
  #modal { background: #fff; width: 540px; max-height: 80vh; overflow: auto; border-radius: 8px; box-shadow: 0 10px 40px rgba(0,0,0,.3); }
  #modal h2 { margin: 0; padding: 16px 20px; font-size: 20px; border-bottom: 1px solid #e8e8e8; }
  #modal .content { padding: 12px 20px; }
  #modal .footer { padding: 12px 20px; border-top: 1px solid #e8e8e8; display: flex; justify-content: flex-end; gap: 8px; }
  .input label.title { font-weight: 700; display: block; margin: 10px 0 4px; }
  .input textarea, .input input[type=text] { width: 100%; font: inherit; padding: 8px; border: 1px solid #bbb; border-radius: 4px; }
  .input .hint { color: #616061; font-size: 12px; }
  .input .error { color: #e01e5a; font-size: 13px; }
  #status { font-size: 12px; opacity: .9; }
  .empty { color: #616061; padding: 24px 6px; }
</style>
</head>
<body>
<header>
  <h1># incidents</h1>
  <label>You are <select id="user"></select></label>
  <label>Scenario <select id="scenario"></select></label>
  <button id="fire" type="button">Fire alert</button>
  <button id="advance" type="button" title="Move the simulated lakehouse six minutes ahead">+6 simulated minutes</button>
  <button id="fix" type="button" title="Play a person's fix made by hand: the failing writer recovers">A person fixes the writer</button>
  <button id="again" type="button" title="A day later the same table fails the same way: fire the alert again for a repeat incident">Same failure a day later</button>
  <span id="clock"></span>
  <span id="status"></span>
</header>
<main id="channel"><div class="empty">Loading…</div></main>
<div id="composer"><form id="command-form"><input id="command" autocomplete="off" placeholder="/iceberg help, /iceberg status"><button class="slack primary" type="submit">Send</button></form></div>
<div id="overlay"><div id="modal" role="dialog"></div></div>
<script>
"use strict";
var BT = "\x60";
var EMOJI = { red_circle: "🔴", large_yellow_circle: "🟡", large_green_circle: "🟢", large_blue_circle: "🔵", white_circle: "⚪", hourglass_flowing_sand: "⏳",
  white_check_mark: "✅", warning: "⚠️", mag: "🔍", gear: "⚙️", octagonal_sign: "🛑", wrench: "🔧", x: "❌",
  clipboard: "📋", no_entry: "⛔", fast_forward: "⏩", leftwards_arrow_with_hook: "↩️", raised_hand: "✋",
  heavy_check_mark: "✔️", hourglass: "⌛", bulb: "💡", memo: "📝", rotating_light: "🚨", lock: "🔒",
  grey_question: "❔", information_source: "ℹ️", pushpin: "📌", repeat: "🔁", robot_face: "🤖" };
var state = null, lastChannel = "", shownModal = -1, shownView = "";
var userSelect = document.getElementById("user");
var scenarioSelect = document.getElementById("scenario");
function el(id) { return document.getElementById(id); }
function esc(s) { return String(s).replace(/&(?!(amp|lt|gt|quot);)/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); }
function emoji(s) { return s.replace(/:([a-z0-9_+-]+):/g, function (w, n) { return EMOJI[n] || w; }); }
function userLabel(id) { var u = (state.users || []).find(function (x) { return x.id === id; }); return u ? u.label.split(" (")[0] : id; }
function pad(n) { return (n < 10 ? "0" : "") + n; }
// The simulated clock: "Today" and "5 min ago" are as of the lakehouse's now, not the browser's.
function simNow() { return state && state.nowMs ? state.nowMs : Date.now(); }
// A Slack date token, <!date^SECONDS^FORMAT|fallback>, in the reader's local time, as Slack shows it.
function dateToken(inner, fallback) {
  var parts = inner.split("^"), at = new Date(Number(parts[1]) * 1000), format = parts[2] || "{date_short} {time}";
  if (!isFinite(at.getTime())) return esc(fallback);
  var day = new Date(at.getFullYear(), at.getMonth(), at.getDate()), today = new Date(simNow()), mid = new Date(today.getFullYear(), today.getMonth(), today.getDate());
  var days = Math.round((mid - day) / 86400000);
  var pretty = function (fn) { return days === 0 ? "Today" : days === 1 ? "Yesterday" : days === -1 ? "Tomorrow" : fn(); };
  var long = function () { return at.toLocaleDateString(undefined, { weekday: "long", month: "long", day: "numeric", year: "numeric" }); };
  var short = function () { return at.toLocaleDateString(undefined, { month: "short", day: "numeric", year: "numeric" }); };
  var plain = function () { return at.toLocaleDateString(undefined, { month: "long", day: "numeric", year: "numeric" }); };
  var secs = Math.round((simNow() - at.getTime()) / 1000), mins = Math.round(Math.abs(secs) / 60);
  var tokens = {
    date_num: at.getFullYear() + "-" + pad(at.getMonth() + 1) + "-" + pad(at.getDate()),
    date: plain(), date_short: short(), date_long: long(),
    date_pretty: pretty(plain), date_short_pretty: pretty(short), date_long_pretty: pretty(long),
    time: pad(at.getHours()) + ":" + pad(at.getMinutes()),
    time_secs: pad(at.getHours()) + ":" + pad(at.getMinutes()) + ":" + pad(at.getSeconds()),
    ago: mins < 1 ? "just now" : mins < 60 ? mins + " minutes " + (secs >= 0 ? "ago" : "from now") : Math.round(mins / 60) + " hours " + (secs >= 0 ? "ago" : "from now")
  };
  var text = format.replace(/\{([a-z_]+)\}/g, function (w, k) { return tokens[k] !== undefined ? tokens[k] : w; });
  return '<time class="date" datetime="' + esc(at.toISOString()) + '" title="' + esc(fallback) + '">' + esc(text) + "</time>";
}
function link(inner) {
  var bar = inner.indexOf("|"), target = bar < 0 ? inner : inner.slice(0, bar), label = bar < 0 ? "" : inner.slice(bar + 1);
  if (target.indexOf("!date^") === 0) return dateToken(target, label);
  if (target[0] === "@") return '<span class="mention">@' + esc(label || userLabel(target.slice(1))) + "</span>";
  if (target.indexOf("!subteam^") === 0) return '<span class="mention">@' + esc(label || target.slice(9)) + "</span>";
  if (target[0] === "!") return '<span class="mention">@' + esc(label || target.slice(1)) + "</span>";
  if (target[0] === "#") return '<span class="mention">#' + esc(label || target.slice(1)) + "</span>";
  return '<a href="' + esc(target) + '" target="_blank" rel="noreferrer">' + esc(label || target) + "</a>";
}
function inline(s) {
  var out = "", re = /<([^<>\n]+)>/g, at = 0, m;
  while ((m = re.exec(s))) { out += fmt(s.slice(at, m.index)) + link(m[1]); at = re.lastIndex; }
  return out + fmt(s.slice(at));
}
function fmt(s) {
  return emoji(esc(s))
    .replace(/(^|[\s(])\*([^*\n]+)\*(?=$|[\s).,:;!?])/gm, "$1<b>$2</b>")
    .replace(/(^|[\s(])_([^_\n]+)_(?=$|[\s).,:;!?])/gm, "$1<i>$2</i>")
    .replace(/(^|[\s(])~([^~\n]+)~(?=$|[\s).,:;!?])/gm, "$1<s>$2</s>");
}
function mrkdwn(text) {
  var blocks = String(text).split(BT + BT + BT), html = "";
  blocks.forEach(function (part, i) {
    if (i % 2 === 1) { html += "<pre>" + esc(part.replace(/^\n/, "")) + "</pre>"; return; }
    var spans = part.split(BT);
    spans.forEach(function (span, j) {
      if (j % 2 === 0) { html += inline(span).replace(/\n/g, "<br>"); return; }
      // Bold code: the stars of *code* sit in the plain text on either side.
      var bold = /\*$/.test(spans[j - 1] || "") && /^\*/.test(spans[j + 1] || "");
      if (bold) { html = html.replace(/\*$/, ""); spans[j + 1] = spans[j + 1].slice(1); }
      html += (bold ? "<b>" : "") + "<code>" + esc(span) + "</code>" + (bold ? "</b>" : "");
    });
  });
  return html;
}
function textObj(t) { if (!t) return ""; return t.type === "plain_text" ? emoji(esc(t.text)) : mrkdwn(t.text); }
function button(b, msg, blockId) {
  return '<button type="button" class="slack ' + (b.style || "") + '" data-action-id="' + esc(b.action_id || "") +
    '" data-block-id="' + esc(blockId || "") + '" data-ts="' + esc(msg ? msg.ts : "") + '" data-value="' + esc(b.value || "") +
    '">' + textObj(b.text) + "</button>";
}
function renderBlocks(blocks, msg, modal) {
  return (blocks || []).map(function (b) {
    switch (b.type) {
      case "header": return '<div class="block header">' + textObj(b.text) + "</div>";
      case "divider": return "<hr>";
      case "context": return '<div class="block context">' + (b.elements || []).map(function (e) { return e.type === "image" ? "🖼" : "<span>" + textObj(e) + "</span>"; }).join("") + "</div>";
      case "actions": return '<div class="block actions">' + (b.elements || []).filter(function (e) { return e.type === "button"; }).map(function (e) { return button(e, msg, b.block_id); }).join("") + "</div>";
      case "section": {
        var main = '<div class="section-text">' + textObj(b.text) + (b.fields ? '<div class="fields">' + b.fields.map(function (f) { return "<div>" + textObj(f) + "</div>"; }).join("") + "</div>" : "") + "</div>";
        var acc = b.accessory && b.accessory.type === "button" ? button(b.accessory, msg, b.block_id) : "";
        return '<div class="block section section-row">' + main + acc + "</div>";
      }
      case "input": return modal ? renderInput(b, modal) : "";
      default: return '<div class="block">' + (b.text ? textObj(b.text) : "") + "</div>";
    }
  }).join("");
}
function renderInput(b, modal) {
  var e = b.element || {}, id = "in-" + b.block_id, err = modal.errors && modal.errors[b.block_id];
  var html = '<div class="block input" data-block-id="' + esc(b.block_id) + '" data-action-id="' + esc(e.action_id) + '" data-type="' + esc(e.type) + '">';
  html += '<label class="title" for="' + esc(id) + '">' + textObj(b.label) + (b.optional ? ' <span class="hint">(optional)</span>' : "") + "</label>";
  if (e.type === "plain_text_input") {
    html += e.multiline ? '<textarea id="' + esc(id) + '" rows="3" placeholder="' + esc(e.placeholder ? e.placeholder.text : "") + '"></textarea>'
      : '<input type="text" id="' + esc(id) + '" placeholder="' + esc(e.placeholder ? e.placeholder.text : "") + '">';
  } else if (e.type === "checkboxes") {
    html += (e.options || []).map(function (o, i) {
      return '<label><input type="checkbox" data-option="' + i + '"> ' + textObj(o.text) + (o.description ? ' <span class="hint">' + textObj(o.description) + "</span>" : "") + "</label>";
    }).join("<br>");
  }
  if (b.hint) html += '<div class="hint">' + textObj(b.hint) + "</div>";
  if (err) html += '<div class="error">' + esc(err) + "</div>";
  return html + "</div>";
}
// Shared files (the commit timeline pictures) show inline, as Slack shows an image; the bytes come
// from the dev server behind the session cookie, so they are fetched and shown from a blob URL.
var fileUrls = {};
function filesHtml(files) {
  if (!files || !files.length) return "";
  return '<div class="files">' + files.map(function (f) {
    var alt = (state.fileAlt || {})[f.id] || f.title || f.name;
    return '<figure><img data-file-id="' + esc(f.id) + '" alt="' + esc(alt) + '"' + (fileUrls[f.id] ? ' src="' + fileUrls[f.id] + '"' : "") + '><figcaption>' + esc(f.title || f.name) + "</figcaption></figure>";
  }).join("") + "</div>";
}
function loadFiles() {
  Array.prototype.forEach.call(document.querySelectorAll("img[data-file-id]:not([src])"), function (img) {
    var id = img.getAttribute("data-file-id");
    if (fileUrls[id] === "") return;
    fileUrls[id] = "";
    fetch("/api/files/" + encodeURIComponent(id))
      .then(function (r) { if (!r.ok) throw new Error("file " + id + ": " + r.status); return r.blob(); })
      .then(function (blob) { fileUrls[id] = URL.createObjectURL(blob); render(); })
      .catch(function () { delete fileUrls[id]; });
  });
}
function visible(m) { return !m.ephemeralUser || m.ephemeralUser === userSelect.value; }
function renderMessage(m, extraClass) {
  var mine = m.ephemeralUser !== undefined;
  return '<div class="msg ' + (extraClass || "") + (mine ? " ephemeral" : "") + '" data-ts="' + esc(m.ts) + '">' +
    '<div class="avatar">🧊</div><div class="body"><div><span class="who">iceberg-bot<span class="app">APP</span></span>' +
    (mine ? ' <span class="only-you">Only visible to you</span>' : "") + "</div>" +
    ((m.blocks && m.blocks.length) ? renderBlocks(m.blocks, m) : '<div class="block">' + mrkdwn(m.text || "") + "</div>") +
    filesHtml(m.files) +
    (m.edits > 0 ? '<div class="edited">(edited)</div>' : "") + "</div></div>";
}
function render() {
  var msgs = (state.messages || []).filter(visible);
  var roots = msgs.filter(function (m) { return !m.thread_ts; });
  var html = roots.map(function (root) {
    var replies = msgs.filter(function (m) { return m.thread_ts === root.ts; });
    return '<section class="incident">' + renderMessage(root, "root") +
      (replies.length ? '<div class="replies">' + replies.length + (replies.length === 1 ? " reply" : " replies") + "</div>" +
        '<div class="thread">' + replies.map(function (r) { return renderMessage(r, "reply"); }).join("") + "</div>" : "") + "</section>";
  }).join("");
  if (!html) html = '<div class="empty">No messages yet. Pick a scenario and press <b>Fire alert</b>, or type <code>/iceberg help</code> below.</div>';
  if (html !== lastChannel) { el("channel").innerHTML = html; lastChannel = html; }
  loadFiles();
  el("clock").textContent = "simulated time " + new Date(state.nowMs).toISOString().slice(0, 16).replace("T", " ") + " UTC · playing " + (state.scenario || "-");
  var modal = (state.modals || []).filter(function (m) { return !m.closed && m.user === userSelect.value; }).pop();
  // A click's modal opens as a placeholder and is filled in by the bot: show it again when it changes.
  if (modal && (modal.index !== shownModal || JSON.stringify(modal.view) !== shownView)) showModal(modal);
  if (!modal && shownModal !== -1) hideModal();
}
function showModal(modal) {
  shownModal = modal.index;
  shownView = JSON.stringify(modal.view);
  var v = modal.view || {};
  el("modal").innerHTML = "<h2>" + textObj(v.title) + '</h2><div class="content">' + renderBlocks(v.blocks, null, modal) +
    '</div><div class="footer"><button type="button" class="slack" id="modal-close">' + textObj(v.close || { type: "plain_text", text: "Cancel" }) +
    '</button>' + (v.submit ? '<button type="button" class="slack primary" id="modal-submit">' + textObj(v.submit) + "</button>" : "") + "</div>";
  el("overlay").style.display = "flex";
  el("modal-close").onclick = function () { post("/api/close", { index: modal.index }).then(hideModal); };
  if (v.submit) el("modal-submit").onclick = function () { submitModal(modal); };
}
function hideModal() { shownModal = -1; shownView = ""; el("overlay").style.display = "none"; el("modal").innerHTML = ""; }
function submitModal(modal) {
  var values = {}, blocks = (modal.view && modal.view.blocks) || [];
  Array.prototype.forEach.call(document.querySelectorAll("#modal .input"), function (node) {
    var blockId = node.getAttribute("data-block-id"), actionId = node.getAttribute("data-action-id"), type = node.getAttribute("data-type");
    var block = blocks.find(function (b) { return b.block_id === blockId; }) || {};
    values[blockId] = {};
    if (type === "checkboxes") {
      var options = (block.element && block.element.options) || [];
      var chosen = Array.prototype.filter.call(node.querySelectorAll("input[type=checkbox]"), function (c) { return c.checked; })
        .map(function (c) { return options[Number(c.getAttribute("data-option"))]; });
      values[blockId][actionId] = { type: "checkboxes", selected_options: chosen };
    } else {
      var field = node.querySelector("textarea, input");
      values[blockId][actionId] = { type: type, value: field && field.value ? field.value : null };
    }
  });
  post("/api/submit", { index: modal.index, values: values }).then(function (r) {
    if (r.errors) { modal.errors = r.errors; shownModal = -1; showModal(modal); return; }
    hideModal(); refresh();
  });
}
function post(path, body) {
  el("status").textContent = "…";
  return fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    .then(function (r) { return r.json(); })
    .then(function (r) { el("status").textContent = r.ok === false && r.error ? r.error : ""; return r; });
}
function refresh() {
  return fetch("/api/state").then(function (r) { return r.json(); }).then(function (s) {
    var first = state === null; state = s;
    if (first) {
      userSelect.innerHTML = s.users.map(function (u) { return '<option value="' + esc(u.id) + '">' + esc(u.label) + "</option>"; }).join("");
      scenarioSelect.innerHTML = s.scenarios.map(function (n) { return '<option' + (n === s.scenario ? " selected" : "") + ">" + esc(n) + "</option>"; }).join("");
    }
    // The command box suggests commands on a table that exists: the scenario's own.
    if (s.table) el("command").placeholder = "/iceberg diagnose " + s.table + ", /iceberg audit " + s.table + ", /iceberg status, /iceberg help";
    render();
  });
}
document.addEventListener("click", function (ev) {
  var b = ev.target.closest ? ev.target.closest("button[data-action-id]") : null;
  if (!b || b.closest("#modal")) return;
  post("/api/action", { user: userSelect.value, ts: b.getAttribute("data-ts"), actionId: b.getAttribute("data-action-id"),
    blockId: b.getAttribute("data-block-id"), value: b.getAttribute("data-value"), text: b.textContent }).then(refresh);
});
el("fire").onclick = function () { post("/api/alert", { scenario: scenarioSelect.value }).then(refresh); };
el("advance").onclick = function () { post("/api/advance", { minutes: 6 }).then(refresh); };
el("again").onclick = function () { post("/api/again", {}).then(function (r) { if (r.ok) el("status").textContent = "a day later: the same failure again; fire the alert"; refresh(); }); };
el("fix").onclick = function () { post("/api/fix", {}).then(function (r) { if (r.ok) el("status").textContent = r.fixed + " writer(s) of " + r.table + " fixed"; }); };
userSelect.onchange = function () { lastChannel = ""; hideModal(); render(); };
el("command-form").onsubmit = function (ev) {
  ev.preventDefault();
  var text = el("command").value;
  post("/api/command", { user: userSelect.value, text: text }).then(function () { el("command").value = ""; refresh(); });
};
refresh(); setInterval(refresh, 1000);
</script>
</body>
</html>
`;
