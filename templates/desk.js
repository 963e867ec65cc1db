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
  var CITE = /\[([^\[\]\s]{2,80})\]/g;

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

  function showReply(result) {
    var msg = message("Reply", "agent");
    var text = result.reply || "";
    var cited = {};
    (result.citations || []).forEach(function (c) { cited[c] = true; });
    var last = 0, match;
    CITE.lastIndex = 0;
    while ((match = CITE.exec(text)) !== null) {
      if (!cited[match[1]]) continue;
      msg.p.appendChild(document.createTextNode(text.slice(last, match.index)));
      var b = el("button", "cite", match[0]);
      b.type = "button";
      b.setAttribute("data-source", match[1]);
      b.setAttribute("aria-expanded", "false");
      b.addEventListener("click", toggleSource);
      msg.p.appendChild(b);
      last = match.index + match[0].length;
    }
    msg.p.appendChild(document.createTextNode(text.slice(last)));
    if (result.outcome && result.outcome.kind === "forced_handoff") {
      msg.box.appendChild(el("p", "warn", "Forced hand-off (" + result.outcome.cause + ")"));
    }
    return msg;
  }

  async function toggleSource(event) {
    var button = event.currentTarget;
    var box = button.closest(".msg");
    var id = button.getAttribute("data-source");
    var existing = box.querySelector('.passage[data-source="' + CSS.escape(id) + '"]');
    if (existing) {
      existing.remove();
      button.setAttribute("aria-expanded", "false");
      return;
    }
    var aside = el("aside", "passage");
    aside.setAttribute("data-source", id);
    aside.appendChild(el("p", "passage-id", id));
    box.appendChild(aside);
    button.setAttribute("aria-expanded", "true");
    var response = await fetch("/api/sources/" + encodeURIComponent(id), { headers: headers(false) });
    if (!response.ok) {
      aside.appendChild(el("p", "warn", await errorText(response)));
      return;
    }
    var source = await response.json();
    var where = source.listing ? source.listing.id + " · " + source.listing.title + " · " + source.listing.district + ", " + source.listing.city
      : source.policy ? source.policy.title + (source.policy.section ? " · " + source.policy.section : "") : "";
    aside.querySelector(".passage-id").textContent = id + (where ? " · " + where : "");
    aside.appendChild(el("blockquote", "source-text", source.text || ""));
  }

  function addCall(ev) {
    var empty = trace.querySelector(".empty");
    if (empty) empty.remove();
    var call = el("div", "call pending");
    var head = el("p");
    head.appendChild(el("b", null, (trace.querySelectorAll(".call").length + 1) + ". " + ev.tool));
    head.appendChild(document.createTextNode(" · model call " + ev.model_call));
    call.appendChild(head);
    call.appendChild(el("pre", "args", pretty(ev.arguments)));
    trace.appendChild(call);
    traceCount.textContent = "(" + trace.querySelectorAll(".call").length + " call(s))";
    return call;
  }

  function finishCall(call, ev) {
    if (!call) call = addCall(ev);
    call.classList.remove("pending");
    if (ev.is_error) call.classList.add("error");
    call.querySelector("p").appendChild(document.createTextNode(" · " + ev.duration_ms + " ms" + (ev.is_error ? " · error" : "")));
    var details = el("details");
    details.appendChild(el("summary", null, "result"));
    details.appendChild(el("pre", null, pretty(ev.result)));
    call.appendChild(details);
  }

  document.getElementById("new-conversation").addEventListener("click", function () {
    turns = [];
    conversation.textContent = "";
    trace.textContent = "";
    traceCount.textContent = "";
  });

  document.getElementById("ask").addEventListener("submit", async function (event) {
    event.preventDefault();
    var input = document.getElementById("inquiry");
    var send = document.getElementById("send");
    var inquiry = input.value.trim();
    if (!inquiry) return;
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
        else if (name === "guard") trace.appendChild(el("p", "warn", "Guard: draft of model call " + data.model_call + " rejected (" + (data.violations || []).length + " problem(s)); " + data.action));
        else if (name === "ticket") { upsertTicket(Object.assign({ status: "open" }, data)); }
        else if (name === "result") result = data;
        else if (name === "error" && data.fatal === false) { trace.appendChild(el("p", "warn", "Error: " + data.error)); }
        else if (name === "error") throw new Error(data.error || "the run failed");
      });
      if (!result) throw new Error("the answer stream ended without a result");
      showReply(result);
      turns.push({ inquiry: inquiry, reply: result.reply });
      input.value = "";
      askStatus.textContent = (result.handoffs || []).length + " ticket(s)";
    } catch (e) {
      conversation.appendChild(el("p", "warn", "Not answered: " + e.message));
      askStatus.textContent = "";
    } finally {
      send.disabled = false;
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
