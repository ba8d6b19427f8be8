// The paste-or-drop form on "/": posts to the API with upload progress, then opens the diagnosis.
// Without this script the form still works: it posts to "/" and the server redirects to the diagnosis.
(function () {
  "use strict";
  var form = document.getElementById("diagnose-form");
  if (!form || !window.XMLHttpRequest || !window.FormData) return;

  var text = document.getElementById("log");
  var input = document.getElementById("files");
  var zone = document.getElementById("dropzone");
  var list = document.getElementById("file-list");
  var button = document.getElementById("submit");
  var progress = document.getElementById("progress");
  var bar = document.getElementById("progress-bar");
  var status = document.getElementById("progress-text");
  var maxBytes = Number(form.dataset.maxBytes || 0);
  var maxFiles = Number(form.dataset.maxFiles || 0);
  var dropped = null; // files dropped where the input cannot take them

  function size(n) {
    if (n < 1024) return n + " B";
    if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }

  function files() {
    return dropped || Array.prototype.slice.call(input.files || []);
  }

  function showFiles() {
    list.textContent = "";
    files().forEach(function (f) {
      var li = document.createElement("li");
      var name = document.createElement("span");
      name.textContent = f.name;
      var bytes = document.createElement("span");
      bytes.textContent = size(f.size);
      li.appendChild(name);
      li.appendChild(bytes);
      list.appendChild(li);
    });
  }

  function showError(message) {
    var box = document.getElementById("form-error");
    if (!box) {
      box = document.createElement("div");
      box.id = "form-error";
      box.className = "alert";
      box.setAttribute("role", "alert");
      form.parentNode.insertBefore(box, form);
    }
    box.textContent = "";
    var p = document.createElement("p");
    var strong = document.createElement("strong");
    strong.textContent = message;
    p.appendChild(strong);
    box.appendChild(p);
  }

  function busy(on, message) {
    button.disabled = on;
    form.setAttribute("aria-busy", on ? "true" : "false");
    progress.hidden = !on;
    status.textContent = message || "";
  }

  input.addEventListener("change", function () { dropped = null; showFiles(); });

  ["dragenter", "dragover"].forEach(function (type) {
    zone.addEventListener(type, function (e) { e.preventDefault(); zone.classList.add("dragging"); });
  });
  ["dragleave", "drop"].forEach(function (type) {
    zone.addEventListener(type, function () { zone.classList.remove("dragging"); });
  });
  zone.addEventListener("drop", function (e) {
    e.preventDefault();
    var dt = e.dataTransfer;
    if (!dt || !dt.files || !dt.files.length) return;
    try {
      input.files = dt.files; // keeps the plain form in step with what was dropped
      dropped = null;
    } catch (err) {
      dropped = Array.prototype.slice.call(dt.files);
    }
    showFiles();
  });

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var chosen = files();
    var pasted = text.value;
    if (!pasted.trim() && !chosen.length) {
      showError("There is nothing to diagnose. Paste the log into the box or choose the log files of the run.");
      text.focus();
      return;
    }
    var total = pasted.length + chosen.reduce(function (n, f) { return n + f.size; }, 0);
    if (maxBytes && total > maxBytes) {
      showError("That is " + size(total) + ", over the " + size(maxBytes) + " limit. Compress the logs with gzip or keep the part around the failure.");
      return;
    }
    if (maxFiles && chosen.length + (pasted.trim() ? 1 : 0) > maxFiles) {
      showError("That is more than " + maxFiles + " files. Send the files of one run.");
      return;
    }

    var xhr = new XMLHttpRequest();
    xhr.open("POST", form.dataset.api);
    xhr.setRequestHeader("Accept", "application/json");
    var body;
    if (chosen.length) {
      body = new FormData();
      if (pasted.trim()) body.append("files", new Blob([pasted], { type: "text/plain" }), "pasted.log");
      chosen.forEach(function (f) { body.append("files", f, f.name); });
    } else {
      body = pasted;
      xhr.setRequestHeader("Content-Type", "text/plain; charset=utf-8");
    }

    var started = Date.now();
    var timer = null;
    function diagnosing() {
      bar.removeAttribute("value"); // indeterminate
      var s = Math.round((Date.now() - started) / 1000);
      status.textContent = "Masking and diagnosing…" + (s >= 2 ? " " + s + " s" : "");
    }

    busy(true, "Uploading…");
    bar.value = 0;
    xhr.upload.addEventListener("progress", function (ev) {
      if (ev.lengthComputable) {
        bar.value = Math.round((ev.loaded / ev.total) * 100);
        status.textContent = "Uploading… " + bar.value + "%";
      }
    });
    xhr.upload.addEventListener("load", function () {
      diagnosing();
      timer = setInterval(diagnosing, 1000);
    });
    xhr.addEventListener("load", function () {
      clearInterval(timer);
      var data = null;
      try { data = JSON.parse(xhr.responseText); } catch (err) { data = null; }
      if (xhr.status === 201 && data && data.id) {
        status.textContent = "Done. Opening the diagnosis…";
        window.location.assign("/d/" + encodeURIComponent(data.id));
        return;
      }
      busy(false);
      var msg = data && data.error ? data.error.message : "The server answered " + xhr.status + ".";
      showError(msg);
    });
    xhr.addEventListener("error", function () {
      clearInterval(timer);
      busy(false);
      showError("The request did not reach the server. Check the connection and try again.");
    });
    xhr.send(body);
  });
})();
