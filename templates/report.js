// The report's only script: page switching by URL hash (#case/<id>), the case
// list's filters and sorting, and citation panels. It reads the page's own
// elements and never turns report text into markup (textContent only).
(function () {
  "use strict";
  var runPage = document.getElementById("run-page");
  var pages = Array.prototype.slice.call(document.querySelectorAll(".case-page"));

  // Where the run page was scrolled to, so "all cases" returns there.
  var runScroll = 0;
  function show() {
    var m = /^#case\/([a-z0-9-]+)$/.exec(location.hash);
    var found = false;
    if (!runPage.hidden) runScroll = window.scrollY;
    pages.forEach(function (p) {
      var on = !!m && p.getAttribute("data-case") === m[1];
      p.hidden = !on;
      found = found || on;
    });
    runPage.hidden = found;
    window.scrollTo(0, found ? 0 : runScroll);
  }

  // Served by `inquiry view`: a link back to its list of report sets.
  if (location.protocol === "http:" || location.protocol === "https:") {
    var back = document.createElement("a");
    back.href = "/";
    back.id = "all-sets";
    back.textContent = "all report sets";
    document.querySelector("header.top .home").insertAdjacentElement("afterend", back);
  }
  window.addEventListener("hashchange", show);
  show();

  // Case list: filters.
  var rows = Array.prototype.slice.call(document.querySelectorAll("#cases tbody tr.case-row"));
  var status = document.getElementById("f-status");
  var tag = document.getElementById("f-tag");
  var lang = document.getElementById("f-lang");
  var critical = document.getElementById("f-critical");
  var text = document.getElementById("f-text");
  var count = document.getElementById("shown-count");
  function filter() {
    var q = text.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (r) {
      var s = r.getAttribute("data-status");
      var ok = (!status.value || s === status.value || (status.value === "failed" && (s === "fail" || s === "flaky"))) &&
        (!tag.value || r.getAttribute("data-tags").indexOf(" " + tag.value + " ") >= 0) &&
        (!lang.value || r.getAttribute("data-lang") === lang.value) &&
        (!critical.checked || r.getAttribute("data-critical") === "yes") &&
        (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.hidden = !ok;
      if (ok) shown += 1;
    });
    count.textContent = shown + " of " + rows.length + " cases";
  }
  [status, tag, lang, critical].forEach(function (el) { el.addEventListener("change", filter); });
  text.addEventListener("input", filter);

  // Case list: sorting by a column header.
  var body = document.querySelector("#cases tbody");
  Array.prototype.forEach.call(document.querySelectorAll("#cases th[data-key]"), function (th) {
    th.addEventListener("click", function () {
      var key = th.getAttribute("data-key");
      var numeric = th.hasAttribute("data-numeric");
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      Array.prototype.forEach.call(th.parentNode.children, function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = a.getAttribute("data-" + key) || "", y = b.getAttribute("data-" + key) || "";
        if (numeric) return dir * (Number(x) - Number(y));
        return dir * x.localeCompare(y);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });

  // "Make this run a case": copy the `inquiry cases add` command.
  Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (b) {
    b.addEventListener("click", function () {
      var text = b.getAttribute("data-copy");
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () { b.textContent = "Copied"; }, function () { b.textContent = "Select and copy the command"; });
      } else {
        b.textContent = "Select and copy the command";
      }
    });
  });

  // Citations: a click shows (or hides) the cited passage and its source.
  Array.prototype.forEach.call(document.querySelectorAll("button.cite"), function (b) {
    b.setAttribute("aria-expanded", "false");
    b.addEventListener("click", function () {
      var panel = document.getElementById(b.getAttribute("data-passage"));
      if (!panel) return;
      var open = panel.hidden;
      panel.hidden = !open;
      b.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });
})();
