// Shows instants in the viewer's time zone and counts down to deadlines.
// Markup: <time datetime="ISO" data-local> and <span data-countdown="ISO">.
(function () {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  document.querySelectorAll(".tz-name").forEach((el) => { el.textContent = zone; });
  document.querySelectorAll("time[data-local]").forEach((el) => {
    const when = new Date(el.getAttribute("datetime"));
    el.title = el.getAttribute("datetime");
    // dateStyle/timeStyle cannot be combined with timeZoneName (Chrome throws), so spell it out.
    el.textContent = when.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
  });
  function tick() {
    document.querySelectorAll("[data-countdown]").forEach((el) => {
      let left = Math.max(0, new Date(el.dataset.countdown) - Date.now()) / 1000;
      const d = Math.floor(left / 86400); left -= d * 86400;
      const h = Math.floor(left / 3600); left -= h * 3600;
      const m = Math.floor(left / 60); const s = Math.floor(left - m * 60);
      el.textContent = (d ? d + "d " : "") + String(h).padStart(2, "0") + ":" + String(m).padStart(2, "0") + ":" + String(s).padStart(2, "0");
    });
  }
  tick(); setInterval(tick, 1000);
})();
