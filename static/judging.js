// The judging page, keyboard only: a digit gives the label with that value (the form's
// button), ArrowLeft or Backspace goes back one passage (to change its label: the undo),
// ArrowRight goes on. Keys typed into a field, or with a modifier, are left alone.
(function () {
  const form = document.getElementById("label-form");
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest && event.target.closest("input, textarea, select")) return;
    const go = (id) => {
      const link = document.getElementById(id);
      if (link) { event.preventDefault(); window.location.assign(link.href); }
    };
    if (event.key === "ArrowLeft" || event.key === "Backspace") return go("back");
    if (event.key === "ArrowRight") return go("forward");
    if (form && /^[0-9]$/.test(event.key)) {
      const button = form.querySelector('button[data-key="' + event.key + '"]');
      if (button) { event.preventDefault(); form.requestSubmit(button); }
    }
  });
})();
