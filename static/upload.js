// The upload pages (a team's runs; an organizer's topics and qrels), improved when JavaScript
// runs (the plain form works without it):
// - files dropped anywhere on the form join the file field;
// - each chosen file is listed with its language, read from its name as the server reads it
//   (evaluator/io/naming.py subset_from_filename), and its line count (gzip files unpacked);
// - the upload is sent with XMLHttpRequest so a progress bar shows it going (runs are tens of MB);
// - the team's latest runs underneath poll their status until they are done.
(function () {
  const form = document.querySelector("form.upload");
  if (!form) return;
  const input = form.querySelector('input[type="file"]');
  const codes = (form.dataset.codes || "").split(" ").filter(Boolean);
  const taken = (form.dataset.taken || "").split(" ").filter(Boolean);  // empty: every code

  // The one known code between non-alphanumeric characters of the base name; null when none
  // or several. A code inside a longer matched code (en in en-zh) does not count.
  function subsetFromFilename(name) {
    const base = name.split(/[\\/]/).pop().toLowerCase();
    const spans = [];
    codes.forEach((code) => {
      const escaped = code.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const pattern = new RegExp("(?<![a-z0-9])" + escaped + "(?![a-z0-9])", "g");
      for (const m of base.matchAll(pattern)) spans.push([m.index, m.index + m[0].length, code]);
    });
    const outer = new Set(spans.filter(([start, end]) => !spans.some(([s, e]) => s <= start && end <= e && e - s > end - start))
      .map((span) => span[2]));
    return outer.size === 1 ? [...outer][0] : null;
  }

  async function countLines(file) {
    let stream = file.stream();
    if (file.name.toLowerCase().endsWith(".gz")) stream = stream.pipeThrough(new DecompressionStream("gzip"));
    const reader = stream.getReader();
    let lines = 0, last = 10;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++;
      if (value.length) last = value[value.length - 1];
    }
    return last === 10 ? lines : lines + 1;  // a last line without its newline counts too
  }

  // "12.3 MB", "4.0 kB", "812 B": a small run is not "0.0 MB".
  function sizeText(bytes) {
    if (bytes < 1000) return bytes + " B";
    return bytes < 1e6 ? (bytes / 1e3).toFixed(1) + " kB" : (bytes / 1e6).toFixed(1) + " MB";
  }

  const list = form.querySelector(".chosen-files");
  function showChosen() {
    const body = list.querySelector("tbody");
    body.replaceChildren();
    Array.from(input.files).forEach((file) => {
      const row = body.insertRow();
      const code = form.dataset.only || subsetFromFilename(file.name);  // one collection: every file is for it
      const refused = code && taken.length && !taken.includes(code);
      const language = refused ? code + ": not taken by this phase" : code || "not in the name";
      [file.name, language, "counting…", sizeText(file.size)].forEach((text, i) => {
        const cell = row.insertCell();
        cell.textContent = text;
        if (i >= 2) cell.className = "num";
        if (i === 1 && (!code || refused)) cell.className = "warnings";
      });
      countLines(file).then((n) => { row.cells[2].textContent = n.toLocaleString(); },
        () => { row.cells[2].textContent = "unreadable"; });
    });
    list.hidden = input.files.length === 0;
  }
  input.addEventListener("change", showChosen);

  form.querySelector(".drop-hint").hidden = false;
  ["dragenter", "dragover"].forEach((type) => form.addEventListener(type, (event) => {
    event.preventDefault();
    form.classList.add("dragging");
  }));
  ["dragleave", "drop"].forEach((type) => form.addEventListener(type, () => form.classList.remove("dragging")));
  form.addEventListener("drop", (event) => {
    event.preventDefault();
    const all = new DataTransfer();
    [...input.files, ...event.dataTransfer.files].forEach((file) => all.items.add(file));
    input.files = all.files;
    showChosen();
  });

  const bar = form.querySelector(".upload-progress");
  const percent = form.querySelector(".upload-percent");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const request = new XMLHttpRequest();
    request.open("POST", form.action || window.location.href);
    request.upload.addEventListener("progress", (e) => {
      if (!e.lengthComputable) return;
      bar.value = Math.round((100 * e.loaded) / e.total);
      percent.textContent = bar.value < 100 ? bar.value + "% sent" : "sent; checking the files…";
    });
    request.addEventListener("load", () => {
      // Stored: the answer is the submission's page (after the redirect). Refused: the form
      // again with the problems, which replaces this page as a plain post would. A form with
      // data-show-answer (the organizer's topics and qrels) shows the page it was sent to as
      // answered, since its one-time message (the stored files' SHA-256) is in that answer.
      const moved = request.status === 200 && request.responseURL !== window.location.href;
      if (moved && !("showAnswer" in form.dataset)) {
        window.location.assign(request.responseURL);
      } else {
        if (moved) window.history.replaceState(null, "", request.responseURL);
        document.open(); document.write(request.responseText); document.close();
      }
    });
    request.addEventListener("error", () => { percent.textContent = "the upload failed; try again"; });
    bar.hidden = false;
    form.querySelector('button[type="submit"]').disabled = true;
    request.send(new FormData(form));
  });

  // The team's latest runs: poll the pending ones until they are done.
  const pending = ["received", "validating", "queued", "scoring"];
  const timer = setInterval(async () => {
    const rows = Array.from(document.querySelectorAll("#recent tr[data-status-url]"))
      .filter((row) => pending.includes(row.dataset.status));
    if (!rows.length) { clearInterval(timer); return; }
    for (const row of rows) {
      const response = await fetch(row.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (!response.ok) continue;
      const data = await response.json();
      row.dataset.status = data.status;
      row.querySelector(".status-value").textContent = data.status;
    }
  }, 3000);
})();
