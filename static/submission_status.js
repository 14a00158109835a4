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
    if (!pending.includes(data.status)) { clearInterval(timer); window.location.reload(); }
  }, 2000);
})();
