// The definition form, improved when JavaScript runs (it works without): each page's Markdown
// is previewed beside it as the competition page will show it, rendered and sanitised by the
// server (competitions/pages.py, the same renderer), a moment after typing stops.
(function () {
  const form = document.querySelector("form.definition-form");
  if (!form) return;
  const url = form.dataset.previewUrl;
  const token = form.querySelector("input[name=csrfmiddlewaretoken]").value;

  function preview(area, box) {
    const body = new FormData();
    body.append("text", area.value);
    fetch(url, { method: "POST", body, headers: { "X-CSRFToken": token }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
      .then((html) => {
        box.innerHTML = html;  // sanitised by the server: only the tags Markdown makes
        box.hidden = !area.value.trim();
      }, () => { box.textContent = "The preview is not available right now."; box.hidden = false; });
  }

  form.querySelectorAll(".markdown-preview").forEach((box) => {
    const area = document.getElementById(box.dataset.previewOf);
    if (!area) return;
    let timer = null;
    area.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => preview(area, box), 300);
    });
    if (area.value.trim()) preview(area, box);
  });
})();
