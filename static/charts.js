// Draws the plotly figures a page carries as JSON data (leaderboards/charts.py as_html):
// <div class="plotly-chart"><script type="application/json">. No inline script runs, so
// the Content-Security-Policy can forbid them all (cupboard/csp.py).
(function () {
  const config = { displaylogo: false, responsive: true };
  document.querySelectorAll(".plotly-chart").forEach((div) => {
    const data = div.querySelector('script[type="application/json"]');
    const figure = JSON.parse(data.textContent);
    data.remove();
    Plotly.newPlot(div, figure.data, Object.assign({}, figure.layout, { autosize: true }), config);
  });
})();
