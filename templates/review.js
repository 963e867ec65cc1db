// The review page's only script. It reads the queue from its own origin's
// /review/api and writes verdicts with the bearer token taken once from the
// URL fragment #token=…; every element is built with textContent, so nothing
// from a model, a listing or a case is ever parsed as markup.
(function () {
  "use strict";
  var token = sessionStorage.getItem("inquiry-review-token") || "";
  var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    token = decodeURIComponent(m[1]);
    sessionStorage.setItem("inquiry-review-token", token);
    history.replaceState(null, "", location.pathname + location.search);
  }
  var params = new URLSearchParams(location.search);
  var reviewer = params.get("reviewer") || localStorage.getItem("inquiry-reviewer") || "";
  var queue = null, at = 0, focus = 0, mine = null;
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function pretty(v) { try { return JSON.stringify(v, null, 2); } catch (e) { return String(v); } }
  function status(text) { $("status").textContent = text; }
  function items(entry) {
    var out = [];
    entry.must.forEach(function (t, i) { out.push({ kind: "must", i: i, text: t }); });
    entry.must_not.forEach(function (t, i) { out.push({ kind: "must_not", i: i, text: t }); });
    return out;
  }
  function complete(entry, v) {
    return v.must.every(function (x) { return x !== null; }) && v.must_not.every(function (x) { return x !== null; });
  }
  function gradable(e) { return e.must.length + e.must_not.length > 0; }
  function progress() {
    var graded = queue.entries.filter(gradable);
    var done = graded.filter(function (e) { return complete(e, e.mine); }).length;
    $("progress").textContent = done + "/" + graded.length + " reviewed";
    $("position").textContent = queue.entries.length ? "reply " + (at + 1) + " of " + queue.entries.length : "nothing to review";
  }
  function verdictWord(kind, v) {
    if (v === null || v === undefined) return "not reviewed";
    if (kind === "must") return v ? "conveyed" : "not conveyed";
    return v ? "stated" : "not stated";
  }
  function renderItems() {
    var entry = queue.entries[at];
    var box = $("items");
    box.textContent = "";
    if (entry.ticket) {
      // A desk ticket marked "reply was wrong": nothing to grade; it is here to become a case.
      var t = el("div", "item ticket");
      t.appendChild(el("div", "kind", "desk ticket " + entry.ticket.ticket_id + ": reply marked wrong"));
      t.appendChild(el("div", "text", entry.ticket.note || "(no note)"));
      t.appendChild(el("div", "muted", "Make it a case:"));
      t.appendChild(el("pre", "to-case", entry.ticket.to_case));
      box.appendChild(t);
      return;
    }
    items(entry).forEach(function (it, k) {
      var div = el("div", "item" + (k === focus ? " focus" : ""));
      div.dataset.kind = it.kind;
      div.dataset.item = String(it.i + 1);
      div.appendChild(el("div", "kind", it.kind === "must" ? "must " + (it.i + 1) + ": is it conveyed?" : "must_not " + (it.i + 1) + ": is it stated?"));
      div.appendChild(el("div", "text", it.text));
      var judges = el("div", "judges");
      entry.judges.forEach(function (j) {
        var line;
        if (!j.verdict) {
          line = el("div", "judge undecided", j.judge + ": undecided — " + (j.error || ""));
        } else {
          var g = (it.kind === "must" ? j.verdict.must : j.verdict.must_not)[it.i];
          if (!g) return;
          var said = it.kind === "must" ? (g.ok ? "conveyed" : "not conveyed") : (g.ok ? "not stated" : "stated");
          line = el("div", "judge " + (g.ok ? "ok" : "fail"), j.judge + ": " + said + (g.note ? " — " + g.note : ""));
        }
        judges.appendChild(line);
      });
      div.appendChild(judges);
      var v = mine[it.kind][it.i];
      var yes = el("button", "yes", it.kind === "must" ? "conveyed (y)" : "stated (y)");
      var no = el("button", "no", it.kind === "must" ? "not conveyed (n)" : "not stated (n)");
      yes.type = no.type = "button";
      yes.addEventListener("click", function () { focus = k; decide(true); });
      no.addEventListener("click", function () { focus = k; decide(false); });
      div.appendChild(yes);
      div.appendChild(no);
      div.appendChild(el("span", "mine" + (v === null ? " unset" : ""), verdictWord(it.kind, v)));
      box.appendChild(div);
    });
  }
  function show() {
    progress();
    var entry = queue.entries[at];
    if (!entry) { $("items").textContent = "The queue is empty."; return; }
    mine = { must: entry.mine.must.slice(), must_not: entry.mine.must_not.slice(), note: entry.mine.note || "" };
    var first = items(entry).findIndex(function (it) { return mine[it.kind][it.i] === null; });
    focus = first < 0 ? 0 : first;
    var head = $("entry-head");
    head.textContent = "";
    head.dataset.key = entry.key;
    head.appendChild(el("strong", "case", entry.case_id));
    head.appendChild(document.createTextNode(" "));
    entry.drawn.forEach(function (d) { head.appendChild(el("span", "drawn", d)); });
    if (entry.reviewers.length) head.appendChild(el("span", "muted", " reviewed by " + entry.reviewers.join(", ")));
    var hist = $("history");
    hist.textContent = "";
    entry.history.forEach(function (t) {
      hist.appendChild(el("div", "inquiry muted", "earlier: " + t.inquiry));
      hist.appendChild(el("div", "reply muted", "replied: " + t.reply));
    });
    $("inquiry").textContent = entry.inquiry;
    $("reply").textContent = entry.reply;
    var ev = $("evidence");
    ev.textContent = "";
    if (entry.citations.length) ev.appendChild(el("p", "muted", "Cited: " + entry.citations.join(", ")));
    entry.evidence.forEach(function (c) {
      var d = el("details", "call" + (c.is_error ? " error" : ""));
      d.appendChild(el("summary", null, c.tool + " " + pretty(c.arguments)));
      var passages = c.result && Array.isArray(c.result.results) ? c.result.results : null;
      if (passages) {
        passages.forEach(function (p) {
          var cited = entry.citations.indexOf(p.chunkId) >= 0;
          d.appendChild(el("div", "passage" + (cited ? " cited" : ""), "[" + p.chunkId + "]" + (cited ? " (cited) " : " ") + p.text));
        });
        if (passages.some(function (p) { return entry.citations.indexOf(p.chunkId) >= 0; })) d.open = true;
      } else {
        d.appendChild(el("pre", null, pretty(c.result)));
      }
      ev.appendChild(d);
    });
    $("note").value = mine.note;
    renderItems();
  }
  async function save() {
    var entry = queue.entries[at];
    if (!entry) return true;
    if (!reviewer) { status("enter your reviewer name first"); $("reviewer").focus(); return false; }
    mine.note = $("note").value;
    status("saving…");
    var r = await fetch("/review/api/verdicts", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Authorization": "Bearer " + token },
      body: JSON.stringify({ reviewer: reviewer, key: entry.key, must: mine.must, must_not: mine.must_not, note: mine.note || null }),
    });
    if (!r.ok) {
      var why = r.status + "";
      try { why = (await r.json()).error || why; } catch (e) { /* keep the status */ }
      status("not saved: " + why);
      return false;
    }
    entry.mine = { must: mine.must.slice(), must_not: mine.must_not.slice(), note: mine.note };
    if (entry.reviewers.indexOf(reviewer) < 0) entry.reviewers.push(reviewer);
    status("saved " + entry.case_id);
    progress();
    return true;
  }
  async function decide(v) {
    var entry = queue.entries[at];
    if (!entry || !gradable(entry)) return;
    var list = items(entry);
    var it = list[focus];
    mine[it.kind][it.i] = v;
    if (focus < list.length - 1) {
      focus += 1;
      renderItems();
      return;
    }
    renderItems();
    if (complete(entry, mine) && await save()) move(1);
  }
  function move(d) {
    if (!queue || !queue.entries.length) return;
    at = Math.max(0, Math.min(queue.entries.length - 1, at + d));
    show();
  }
  document.addEventListener("keydown", function (e) {
    if (e.target && (e.target.tagName === "TEXTAREA" || e.target.tagName === "INPUT")) {
      if (e.key === "Escape") e.target.blur();
      return;
    }
    if (!queue || e.ctrlKey || e.metaKey || e.altKey) return;
    var n = queue.entries[at] ? items(queue.entries[at]).length : 0;
    switch (e.key) {
      case "y": decide(true); break;
      case "n": decide(false); break;
      case "ArrowDown": focus = Math.min(n - 1, focus + 1); renderItems(); break;
      case "ArrowUp": focus = Math.max(0, focus - 1); renderItems(); break;
      case "j": case "ArrowRight": move(1); break;
      case "k": case "ArrowLeft": move(-1); break;
      case "c": $("note").focus(); break;
      case "Enter": save(); break;
      default: return;
    }
    e.preventDefault();
  });
  $("reviewer").value = reviewer;
  $("reviewer").addEventListener("change", function () {
    var v = $("reviewer").value.trim();
    if (!/^[a-z0-9][a-z0-9-]*$/.test(v)) { status("reviewer: lower-case letters, digits and hyphens"); return; }
    reviewer = v;
    localStorage.setItem("inquiry-reviewer", v);
    load();
  });
  async function load() {
    status("loading…");
    var r = await fetch("/review/api/queue?reviewer=" + encodeURIComponent(reviewer));
    if (!r.ok) { status("cannot load the queue: " + r.status); return; }
    queue = await r.json();
    var c = queue.counts;
    $("counts").textContent = c.entries + " replies to review from " + c.replies + ": " + c.disagreement + " where the judges disagree, " +
      c.undecided + " a judge left undecided, " + c.sampled + " sampled at random from the " + c.graded + " graded (seed " + queue.seed + ")" +
      (c.tickets ? ", and " + c.tickets + " desk ticket(s) marked \u201creply was wrong\u201d." : ".");
    var first = queue.entries.findIndex(function (e) { return !complete(e, e.mine); });
    at = first < 0 ? 0 : first;
    status("");
    show();
  }
  load();
})();
