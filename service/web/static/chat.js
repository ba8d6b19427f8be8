// The chat under a diagnosis: posts the question to the streaming endpoint, shows the LLM's text as it
// arrives, then swaps in the server-rendered, validated answer with its citations.
// Without this script (or without streaming fetch) the forms post to /d/{id}/ask and the page reloads.
(function () {
  "use strict";
  var form = document.getElementById("ask-form");
  if (!form || !window.fetch || !window.TextDecoder || !window.ReadableStream) return;

  var field = document.getElementById("question");
  var button = document.getElementById("ask-button");
  var log = document.getElementById("messages");
  var suggestions = document.querySelector(".suggestions");
  var running = false;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function bubble(role, text) {
    var msg = el("div", "msg msg-" + role);
    var meta = el("p", "msg-meta");
    meta.appendChild(el("span", "who", role === "user" ? "You" : "crashdoc"));
    msg.appendChild(meta);
    var body = el("div", "msg-body");
    var p = el("p", role === "user" ? "question-text" : "draft", text);
    body.appendChild(p);
    msg.appendChild(body);
    var empty = log.querySelector(".empty");
    if (empty) empty.remove();
    log.appendChild(msg);
    return { msg: msg, text: p };
  }

  // Replace the draft pair with the server's rendering of the last two messages (masked question, answer).
  function settle(pair) {
    return fetch(form.dataset.fragment, { headers: { Accept: "text/html" } })
      .then(function (r) { if (!r.ok) throw new Error("fragment " + r.status); return r.text(); })
      .then(function (html) {
        var tpl = document.createElement("template");
        tpl.innerHTML = html;
        var rendered = tpl.content.querySelectorAll(".msg");
        if (rendered.length < 2) throw new Error("no messages");
        pair.user.msg.replaceWith(rendered[rendered.length - 2]);
        pair.answer.msg.replaceWith(rendered[rendered.length - 1]);
      });
  }

  function fail(pair, message) {
    pair.answer.msg.removeAttribute("aria-busy");
    pair.answer.text.textContent = message;
    pair.answer.msg.classList.add("msg-error");
  }

  // Minimal server-sent-events reader over a fetch body: "event: x\ndata: {...}\n\n" frames.
  function readEvents(response, onEvent) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    function frame(raw) {
      var kind = "message";
      var data = [];
      raw.split("\n").forEach(function (line) {
        if (line.indexOf("event:") === 0) kind = line.slice(6).trim();
        else if (line.indexOf("data:") === 0) data.push(line.slice(5).replace(/^ /, ""));
      });
      if (data.length) onEvent(kind, JSON.parse(data.join("\n")));
    }
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) {
          if (buffer.trim()) frame(buffer);
          return;
        }
        buffer += decoder.decode(chunk.value, { stream: true });
        var cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          frame(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
        }
        return pump();
      });
    }
    return pump();
  }

  function ask(question) {
    if (running || !question.trim()) return;
    running = true;
    button.disabled = true;
    var pair = { user: bubble("user", question), answer: bubble("assistant", "") };
    pair.answer.msg.setAttribute("aria-busy", "true");
    var draft = "";
    var final = null;
    var error = null;
    fetch(form.dataset.stream, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ question: question })
    })
      .then(function (r) {
        if (!r.ok) {
          return r.json().then(function (body) {
            throw new Error(body && body.error ? body.error.message : "The server answered " + r.status + ".");
          });
        }
        return readEvents(r, function (kind, data) {
          if (kind === "delta") {
            draft += data.text;
            pair.answer.text.textContent = draft;
          } else if (kind === "withdraw") {
            draft = "";
            pair.answer.text.textContent = data.reason; // the rejected draft is taken back before the answer comes
          } else if (kind === "answer") {
            final = data;
          } else if (kind === "error") {
            error = data.error ? data.error.message : "The answer failed.";
          }
        });
      })
      .then(function () {
        if (error) throw new Error(error);
        if (!final) throw new Error("The answer was cut off. Ask again.");
        pair.answer.text.textContent = final.answer.text; // in case the page fragment cannot be fetched
        return settle(pair).catch(function () { pair.answer.msg.removeAttribute("aria-busy"); });
      })
      .then(function () { field.value = ""; }, function (err) { fail(pair, err.message); })
      .then(function () {
        running = false;
        button.disabled = false;
        field.focus();
      });
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    ask(field.value);
  });
  field.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ask(field.value);
    }
  });
  if (suggestions) {
    suggestions.addEventListener("submit", function (e) {
      var b = e.submitter;
      if (!b || !b.value) return; // an old browser: let the form post
      e.preventDefault();
      field.value = b.value;
      ask(b.value);
    });
  }
})();
