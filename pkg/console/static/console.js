// SPDX-License-Identifier: Apache-2.0
// The a2abus console's only script: it follows a session live (server-sent
// events) and writes what agents wrote with textContent only, never as HTML.
"use strict";
(function () {
  var live = document.getElementById("live");
  if (!live || !window.EventSource) { return; }
  var session = live.dataset.session;
  var after = live.dataset.after || "0";
  var status = document.getElementById("live-state");
  var tasks = document.querySelector("#tasks tbody");
  var turns = document.getElementById("turns");

  function cell(tr, cls, text) {
    var td = document.createElement("td");
    if (cls) { td.className = cls; }
    td.textContent = text || "";
    tr.appendChild(td);
    return td;
  }

  function row(ev) {
    var tr = tasks.querySelector('tr[data-task="' + CSS.escape(ev.taskId) + '"]');
    if (tr) { return tr; }
    tr = document.createElement("tr");
    tr.dataset.task = ev.taskId;
    cell(tr, "", ev.created ? ev.created.replace("T", " ").replace("Z", "") : "");
    cell(tr, "call", (ev.caller || "?") + " \u2192 " + ev.agent + "." + (ev.skill || "?"));
    var id = cell(tr, "", "");
    var a = document.createElement("a");
    a.href = "/sessions/" + encodeURIComponent(session) + "/tasks/" + encodeURIComponent(ev.taskId);
    a.textContent = ev.taskId;
    id.appendChild(a);
    cell(tr, "state", "");
    cell(tr, "code", "");
    cell(tr, "num", "");
    tasks.appendChild(tr);
    var none = document.getElementById("no-tasks");
    if (none) { none.remove(); }
    return tr;
  }

  var src = new EventSource("/sessions/" + encodeURIComponent(session) + "/events?after=" + encodeURIComponent(after));
  src.onopen = function () { status.textContent = "live"; };
  src.onerror = function () { status.textContent = "live: reconnecting"; };
  src.addEventListener("task", function (m) {
    var ev = JSON.parse(m.data);
    var tr = row(ev);
    if (tr.querySelector(".state").textContent !== "" && ev.inFlight) { return; } // an end already shown stays
    tr.className = "state-" + ev.state;
    tr.querySelector(".state").textContent = ev.state;
    tr.querySelector(".code").textContent = ev.code || "";
    tr.querySelector(".num").textContent = ev.inFlight ? "running" : "";
  });
  src.addEventListener("turn", function (m) {
    var ev = JSON.parse(m.data);
    var li = document.createElement("li");
    li.className = "turn role-" + ev.role + (ev.notification ? " notification" : "");
    li.value = ev.seq;
    var meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = ev.role + " \u00b7 " + ev.time;
    var pre = document.createElement("pre");
    pre.textContent = ev.content;
    li.appendChild(meta);
    li.appendChild(pre);
    turns.appendChild(li);
  });
})();
