// Shows instants in the viewer's time zone and counts down to deadlines.
// Markup: <time datetime="ISO" data-local> and <span data-countdown="ISO">.
// A countdown reaching zero or a future instant passing while the page is open (a phase
// opening or closing, a reveal: every future instant a page shows is a change of state)
// reloads the page once, so it shows what the server shows from then on instead of
// "opens in 00:00:00".
(function () {
  const loadedAt = Date.now();
  const GRACE_MS = 1500;  // the server's clock may be a little behind ours
  let reloading = false;
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
  function reloadWhenDue() {
    const now = Date.now();
    document.querySelectorAll("[data-countdown], time[data-local]").forEach((el) => {
      const at = new Date(el.dataset.countdown || el.getAttribute("datetime")).getTime();
      if (!reloading && at > loadedAt && at + GRACE_MS <= now) { reloading = true; window.location.reload(); }
    });
  }
  tick(); setInterval(() => { tick(); reloadWhenDue(); }, 1000);
})();
