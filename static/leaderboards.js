// Sorts a leaderboard table by any column when its heading is clicked (again: reverse).
// Cells carry their raw value in data-value; empty values (incomplete) always sort last.
(function () {
  function cellValue(row, index, numeric) {
    const cell = row.children[index];
    const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
    if (!numeric) return raw.toLowerCase();
    return raw === "" ? null : parseFloat(raw);
  }
  document.querySelectorAll("table.sortable").forEach((table) => {
    const headings = Array.from(table.tHead.rows[0].cells);
    headings.forEach((th, index) => {
      if (!th.dataset.sort) return;
      th.tabIndex = 0;
      th.addEventListener("click", () => {
        const numeric = th.dataset.sort === "num";
        // Scores read best-first, so the first click on a score sorts high to low; rank, rank bands
        // (data-first="ascending") and text low to high.
        const defaultOrder = th.dataset.first || (numeric && index > 0 ? "descending" : "ascending");
        const current = th.getAttribute("aria-sort");
        const order = current ? (current === "ascending" ? "descending" : "ascending") : defaultOrder;
        headings.forEach((h) => h.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", order);
        const body = table.tBodies[0];
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
          if (x === null || y === null) return (x === null) - (y === null);
          const cmp = x < y ? -1 : x > y ? 1 : 0;
          return order === "ascending" ? cmp : -cmp;
        });
        rows.forEach((row) => body.appendChild(row));
      });
    });
  });
})();
// The search box above a leaderboard (hidden without JavaScript): keeps the rows whose team
// or method contains what is typed, case-insensitively; the count says how many are shown.
(function () {
  document.querySelectorAll("input[data-filters]").forEach((input) => {
    const table = document.querySelector(input.dataset.filters);
    const box = input.closest(".team-search");
    const count = box.querySelector(".filter-count");
    if (!table) return;
    box.hidden = false;
    input.addEventListener("input", () => {
      const wanted = input.value.trim().toLowerCase();
      let shown = 0;
      Array.from(table.tBodies[0].rows).forEach((row) => {
        const text = (row.children[1].textContent + " " + row.children[2].textContent).toLowerCase();
        row.hidden = wanted !== "" && !text.includes(wanted);
        shown += row.hidden ? 0 : 1;
      });
      count.textContent = wanted ? shown + " of " + table.tBodies[0].rows.length + " rows" : "";
    });
  });
})();
// The run-metadata filter applies as soon as a choice changes (the button stays for use without JavaScript).
(function () {
  document.querySelectorAll("form.metadata-filter select[data-autosubmit]").forEach((select) => {
    select.addEventListener("change", () => select.form.submit());
  });
})();
