// The desk's only script. It talks to its own origin's /api (a bearer token,
// when the desk needs one, is read once from the URL fragment #token=…) and
// builds every element with textContent: nothing from a model, a listing or
// a ticket is ever parsed as markup.
(function () {
  "use strict";
  var token = sessionStorage.getItem("inquiry-desk-token") || "";
  var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    token = decodeURIComponent(m[1]);
    sessionStorage.setItem("inquiry-desk-token", token);
    history.replaceState(null, "", location.pathname);
  }
  function headers(json) {
    var h = {};
    if (json) h["Content-Type"] = "application/json";
    if (token) h["Authorization"] = "Bearer " + token;
    return h;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function pretty(v) {
    try { return JSON.stringify(v, null, 2); } catch (e) { return String(v); }
  }
  async function errorText(response) {
    try { var body = await response.json(); return body.error || response.statusText; } catch (e) { return response.status + " " + response.statusText; }
  }

  // Server-sent events over fetch (EventSource cannot POST or send a token).
  async function readEvents(response, onEvent) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, "\n");
      var end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        var block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        var name = "message", data = [];
        block.split("\n").forEach(function (line) {
          if (line.indexOf("event:") === 0) name = line.slice(6).trim();
          else if (line.indexOf("data:") === 0) data.push(line.slice(5).replace(/^ /, ""));
        });
        if (data.length) {
          var value;
          try { value = JSON.parse(data.join("\n")); } catch (e) { value = data.join("\n"); }
          onEvent(name, value);
        }
      }
    }
  }

  // Conversation pane.
  var conversation = document.getElementById("conversation");
  var trace = document.getElementById("trace");
  var traceCount = document.getElementById("trace-count");
  var askStatus = document.getElementById("ask-status");
  var turns = [];
  var CITE = /\[([^\[\]]{2,200})\]/g;

  function message(who, cls, text) {
    var box = el("div", "msg " + cls);
    box.appendChild(el("span", "who", who));
    var p = el("p", "reply");
    box.appendChild(p);
    if (text !== undefined) p.textContent = text;
    conversation.appendChild(box);
    conversation.scrollTop = conversation.scrollHeight;
    return { box: box, p: p };
  }

  // The reply's sentence around a citation at [start, end): from the end of
  // the previous sentence (". ", "! ", "? " or a line break) to the citation's end.
  function citedSentence(text, start, end) {
    var before = text.slice(0, start);
    var cut = -1, m, boundary = /[.!?](?:[\]\)”“"'])?\s+|\n+/g;
    while ((m = boundary.exec(before)) !== null) {
      if (m.index + m[0].length < before.length) cut = m.index + m[0].length;
    }
    return { before: text.slice(cut < 0 ? 0 : cut, start), cite: text.slice(start, end) };
  }

  // Citations become buttons that open the source dialog; one that no tool
  // returned in this run is marked (as in the report) and says so there.
  function showReply(result) {
    var msg = message("Reply", "agent");
    var text = result.reply || "";
    var cited = {}, returned = {};
    (result.citations || []).forEach(function (c) { cited[c] = true; });
    ((result.evidence && result.evidence.ids) || []).forEach(function (c) { returned[c] = true; });
    var last = 0, match;
    CITE.lastIndex = 0;
    while ((match = CITE.exec(text)) !== null) {
      var ids = match[1].split(/[,;]/).map(function (x) { return x.trim(); });
      if (!ids.some(function (id) { return cited[id]; })) continue;
      msg.p.appendChild(document.createTextNode(text.slice(last, match.index) + "["));
      // Each bracket's buttons get their own sentence (a `var` here would be shared by every closure).
      addCiteButtons(msg.p, ids, citedSentence(text, match.index, match.index + match[0].length));
      msg.p.appendChild(document.createTextNode("]"));
      last = match.index + match[0].length;
    }
    msg.p.appendChild(document.createTextNode(text.slice(last)));
    if (result.outcome && result.outcome.kind === "forced_handoff") {
      msg.box.appendChild(el("p", "warn", "Forced hand-off (" + result.outcome.cause + ")"));
    }
    return msg;

    function addCiteButtons(p, ids, sentence) {
      ids.forEach(function (id, i) {
        if (i > 0) p.appendChild(document.createTextNode(", "));
        if (!cited[id]) { p.appendChild(document.createTextNode(id)); return; }
        var b = el("button", "cite", id);
        b.type = "button";
        b.setAttribute("data-source", id);
        b.setAttribute("aria-haspopup", "dialog");
        if (!returned[id]) {
          b.classList.add("ungrounded");
          b.title = "No tool returned this id in this run";
        }
        b.addEventListener("click", function () { openSource(b, id, sentence, !!returned[id]); });
        p.appendChild(b);
      });
    }
  }

  // The source dialog: the cited sentence of the reply, then the whole
  // description, policy page or listing record with the cited passage marked.
  var dialog = document.getElementById("source-dialog");
  var dialogOpener = null;
  document.getElementById("source-close").addEventListener("click", function () { dialog.close(); });
  dialog.addEventListener("close", function () {
    if (dialogOpener) { dialogOpener.setAttribute("aria-expanded", "false"); dialogOpener.focus(); }
    dialogOpener = null;
  });

  async function openSource(button, id, sentence, returned) {
    var title = document.getElementById("source-title");
    var citedBox = document.getElementById("source-cited");
    var body = document.getElementById("source-body");
    title.textContent = id;
    citedBox.textContent = "";
    body.textContent = "";
    citedBox.appendChild(el("p", "label", "Cited in the reply:"));
    var quote = el("blockquote", "cited-sentence");
    quote.appendChild(el("mark", null, sentence.before + sentence.cite));
    citedBox.appendChild(quote);
    if (!returned) {
      citedBox.appendChild(el("p", "warn ungrounded-note", "This citation is not among the passages the agent's tools returned in this run."));
    }
    dialogOpener = button;
    button.setAttribute("aria-expanded", "true");
    if (!dialog.open) dialog.showModal();
    var response = await fetch("/api/sources/" + encodeURIComponent(id), { headers: headers(false) });
    if (!response.ok) {
      body.appendChild(el("p", "warn", await errorText(response)));
      return;
    }
    var source = await response.json();
    var doc = source.document || { title: id, parts: [{ id: id, text: source.text || "", cited: true }] };
    title.textContent = id + " · " + doc.title;
    if (doc.fields) {
      var dl = el("dl", "fields");
      doc.fields.forEach(function (f) { dl.appendChild(el("dt", null, f[0])); dl.appendChild(el("dd", null, f[1])); });
      body.appendChild(dl);
    }
    body.appendChild(el("p", "label", doc.fields ? "The listing's record and description:" : "The source, with the cited passage marked:"));
    var docBox = el("div", "doc");
    (doc.parts || []).forEach(function (part) {
      if (part.heading) docBox.appendChild(el("h4", null, part.heading));
      var p = el("p", "part");
      p.setAttribute("data-chunk", part.id);
      if (part.cited) {
        var mark = el("mark", "cited-passage", part.text);
        p.appendChild(mark);
      } else {
        p.textContent = part.text;
      }
      docBox.appendChild(p);
    });
    body.appendChild(docBox);
    var marked = docBox.querySelector("mark.cited-passage");
    if (marked) marked.scrollIntoView({ block: "nearest" });
  }

  // Middle pane: each tool call is a <details> that expands to its
  // arguments, result and duration; failed guard checks are listed.
  function addCall(ev) {
    var empty = trace.querySelector(".empty");
    if (empty) empty.remove();
    var call = el("div", "call pending");
    var details = el("details", "step");
    var summary = el("summary");
    summary.appendChild(el("b", null, (trace.querySelectorAll(".call").length + 1) + ". " + ev.tool));
    summary.appendChild(el("span", "meta", " · model call " + ev.model_call));
    details.appendChild(summary);
    var dl = el("dl");
    dl.appendChild(el("dt", null, "Arguments"));
    var args = el("dd");
    args.appendChild(el("pre", "args", pretty(ev.arguments)));
    dl.appendChild(args);
    details.appendChild(dl);
    call.appendChild(details);
    trace.appendChild(call);
    traceCount.textContent = "(" + trace.querySelectorAll(".call").length + " call(s))";
    return call;
  }

  function finishCall(call, ev) {
    if (!call) call = addCall(ev);
    call.classList.remove("pending");
    if (ev.is_error) call.classList.add("error");
    call.querySelector("summary .meta").textContent = " · model call " + ev.model_call + " · " + ev.duration_ms + " ms" + (ev.is_error ? " · error" : "");
    var dl = call.querySelector("dl");
    dl.appendChild(el("dt", null, ev.is_error ? "Result (error)" : "Result"));
    var result = el("dd");
    result.appendChild(el("pre", "result", pretty(ev.result)));
    dl.appendChild(result);
    dl.appendChild(el("dt", null, "Duration"));
    dl.appendChild(el("dd", "duration", ev.duration_ms + " ms"));
  }

  function violationText(v) {
    if (v.guard === "citation") return "citation [" + v.id + "] names an id no tool returned in this conversation";
    if (v.guard === "number") return "the figure \u201c" + ((v.figure && v.figure.text) || "?") + "\u201d is in no tool result and in none of the customer's messages";
    if (v.guard === "missing_evidence") return "the reply states figures but cites no source";
    if (v.guard === "empty") return "the reply is empty";
    if (v.guard === "grounding" && v.finding) return "sentence " + v.finding.sentence + " is " + v.finding.kind + ": " + v.finding.reason;
    return v.guard || "a check failed";
  }

  function showGuard(data) {
    var empty = trace.querySelector(".empty");
    if (empty) empty.remove();
    var box = el("div", "guard-failed warn");
    box.appendChild(el("p", null, "Guard: the draft of model call " + data.model_call + " failed " + (data.violations || []).length + " check(s); " + (data.action === "repair" ? "the model was asked to repair it" : "handed off to a person")));
    var list = el("ul");
    (data.violations || []).forEach(function (v) { list.appendChild(el("li", null, violationText(v))); });
    box.appendChild(list);
    var draft = el("details");
    draft.appendChild(el("summary", null, "rejected draft"));
    draft.appendChild(el("pre", null, data.draft || ""));
    box.appendChild(draft);
    trace.appendChild(box);
  }

  // A conversation: follow-ups carry the earlier turns until "New conversation".
  var turnInfo = document.getElementById("turn-info");
  var busy = false;
  function showTurns() {
    turnInfo.textContent = turns.length
      ? "Follow-ups continue this conversation (" + turns.length + " earlier turn(s) are sent along) until you press \u201cNew conversation\u201d."
      : "A new conversation: follow-up messages keep its earlier turns until you press \u201cNew conversation\u201d.";
  }
  function newConversation() {
    turns = [];
    conversation.textContent = "";
    trace.textContent = "";
    traceCount.textContent = "";
    showTurns();
  }
  document.getElementById("new-conversation").addEventListener("click", function () {
    if (!busy) newConversation();
  });

  // Example buttons: each starts a new conversation with its inquiry.
  Array.prototype.forEach.call(document.querySelectorAll("#examples button.example"), function (b) {
    b.addEventListener("click", function () {
      if (busy) return;
      newConversation();
      document.getElementById("inquiry").value = b.getAttribute("data-inquiry");
      document.getElementById("ask").requestSubmit();
    });
  });

  document.getElementById("ask").addEventListener("submit", async function (event) {
    event.preventDefault();
    var input = document.getElementById("inquiry");
    var send = document.getElementById("send");
    var inquiry = input.value.trim();
    if (!inquiry || busy) return;
    busy = true;
    send.disabled = true;
    askStatus.textContent = "answering…";
    message("Customer", "customer", inquiry);
    trace.textContent = "";
    traceCount.textContent = "";
    var pending = [];
    var result = null;
    try {
      var response = await fetch("/api/inquiries", {
        method: "POST",
        headers: headers(true),
        body: JSON.stringify({ inquiry: inquiry, history: turns.slice(-5) }),
      });
      if (!response.ok) throw new Error(await errorText(response));
      await readEvents(response, function (name, data) {
        if (name === "tool_call") pending.push(addCall(data));
        else if (name === "tool_result") finishCall(pending.shift(), data);
        else if (name === "guard") showGuard(data);
        else if (name === "ticket") { upsertTicket(Object.assign({ status: "open" }, data)); }
        else if (name === "result") result = data;
        else if (name === "error" && data.fatal === false) { trace.appendChild(el("p", "warn", "Error: " + data.error)); }
        else if (name === "error") throw new Error(data.error || "the run failed");
      });
      if (!result) throw new Error("the answer stream ended without a result");
      showReply(result);
      turns.push({ inquiry: inquiry, reply: result.reply });
      showTurns();
      input.value = "";
      askStatus.textContent = (result.handoffs || []).length + " ticket(s)";
    } catch (e) {
      conversation.appendChild(el("p", "warn", "Not answered: " + e.message));
      askStatus.textContent = "";
    } finally {
      send.disabled = false;
      busy = false;
    }
  });

  // Queue pane: the list, then a live stream of new and changed tickets.
  var queue = document.getElementById("queue");
  var queueCount = document.getElementById("queue-count");
  var filter = document.getElementById("queue-filter");
  var tickets = {};
  var STATUSES = ["open", "in_progress", "done"];

  function renderTicket(t) {
    var box = el("div", "ticket status-" + t.status);
    box.id = "ticket-" + t.ticketId;
    box.setAttribute("data-ticket", t.ticketId);
    var head = el("p");
    head.appendChild(el("b", null, t.ticketId));
    head.appendChild(document.createTextNode(" · "));
    head.appendChild(el("span", "reason", t.reason));
    if (t.listingId) head.appendChild(document.createTextNode(" · " + t.listingId));
    box.appendChild(head);
    box.appendChild(el("p", "summary", t.summary));
    if (t.contactEmail) box.appendChild(el("p", null, "Contact: " + t.contactEmail));
    var row = el("p");
    var select = el("select", "status-select");
    select.setAttribute("aria-label", "status of " + t.ticketId);
    STATUSES.forEach(function (s) {
      var o = el("option", null, s.replace("_", " "));
      o.value = s;
      if (s === t.status) o.selected = true;
      select.appendChild(o);
    });
    select.addEventListener("change", function () { patch(t.ticketId, { status: select.value }); });
    row.appendChild(select);
    row.appendChild(el("small", null, " " + (t.created_at || t.createdAt || "")));
    box.appendChild(row);
    if (t.note) box.appendChild(el("p", "note-text", "Note: " + t.note));
    box.appendChild(reviewColumn(t));
    return box;
  }

  // Review column: the person handling a ticket marks the reply the customer
  // got as wrong, with a note; marked tickets go to the review queue
  // (inquiry view --review --desk) and can become cases (inquiry tickets trace).
  var wrong = {};
  function reviewColumn(t) {
    var box = el("p", "review-col");
    var mark = wrong[t.ticketId];
    if (mark) {
      box.appendChild(el("span", "wrong-mark", "Reply marked wrong" + (mark.note ? ": " + mark.note : "")));
      return box;
    }
    var note = el("input", "wrong-note");
    note.placeholder = "what was wrong (optional)";
    note.setAttribute("aria-label", "what was wrong with the reply to " + t.ticketId);
    var button = el("button", "mark-wrong", "Reply was wrong");
    button.type = "button";
    button.addEventListener("click", async function () {
      var response = await fetch("/api/handoffs/" + encodeURIComponent(t.ticketId) + "/wrong",
        { method: "POST", headers: headers(true), body: JSON.stringify({ note: note.value }) });
      if (!response.ok) { alert(await errorText(response)); return; }
      var marked = await response.json();
      wrong[marked.ticketId] = marked;
      redraw();
    });
    box.appendChild(note);
    box.appendChild(button);
    return box;
  }
  async function loadWrong() {
    var response = await fetch("/api/wrong-replies", { headers: headers(false) });
    if (!response.ok) return;
    wrong = {};
    (await response.json()).wrongReplies.forEach(function (w) { wrong[w.ticketId] = w; });
  }

  function redraw() {
    var wanted = filter.value;
    var ids = Object.keys(tickets).sort();
    queue.textContent = "";
    var shown = 0;
    ids.forEach(function (id) {
      var t = tickets[id];
      if (wanted && t.status !== wanted) return;
      queue.appendChild(renderTicket(t));
      shown += 1;
    });
    if (!shown) queue.appendChild(el("p", "empty", "No ticket here."));
    queueCount.textContent = "(" + shown + ")";
  }

  function upsertTicket(t) {
    var known = tickets[t.ticketId];
    tickets[t.ticketId] = known ? Object.assign(known, t) : t;
    redraw();
  }

  async function patch(id, body) {
    var response = await fetch("/api/handoffs/" + encodeURIComponent(id), { method: "PATCH", headers: headers(true), body: JSON.stringify(body) });
    if (response.ok) upsertTicket(await response.json());
    else alert(await errorText(response));
  }

  filter.addEventListener("change", redraw);

  var connection = document.getElementById("connection");
  async function follow() {
    for (;;) {
      try {
        var listed = await fetch("/api/handoffs", { headers: headers(false) });
        if (!listed.ok) throw new Error(await errorText(listed));
        var body = await listed.json();
        tickets = {};
        body.tickets.forEach(function (t) { tickets[t.ticketId] = t; });
        await loadWrong();
        redraw();
        var stream = await fetch("/api/handoffs/stream?since=" + body.lastEvent, { headers: headers(false) });
        if (!stream.ok) throw new Error(await errorText(stream));
        connection.textContent = "live";
        await readEvents(stream, function (name, data) { if (name === "ticket") upsertTicket(data); });
        connection.textContent = "reconnecting…";
      } catch (e) {
        connection.textContent = "offline: " + e.message;
      }
      await new Promise(function (r) { setTimeout(r, 2000); });
    }
  }
  follow();
})();
