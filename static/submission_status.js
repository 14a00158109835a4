// While the submission is pending, poll its status and reload once it is done.
(function () {
  const box = document.getElementById("state");
  const pending = ["queued", "scoring"];
  if (!box || !pending.includes(box.dataset.status)) return;
  const timer = setInterval(async () => {
    const response = await fetch(box.dataset.statusUrl, { headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const data = await response.json();
    box.querySelector(".status-value").textContent = data.status;
    box.querySelector(".progress").value = data.progress;
    box.querySelector(".status-reason").textContent = data.status_reason;
    const place = box.querySelector(".queue-place");
    place.textContent = data.queue ? data.queue.text : "";
    place.hidden = !data.queue;
    if (!pending.includes(data.status)) { clearInterval(timer); window.location.reload(); }
  }, 2000);
})();
