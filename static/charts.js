// Draws the plotly figures a page carries as JSON data (leaderboards/charts.py as_html):
// <div class="plotly-chart"><script type="application/json">. No inline script runs, so
// the Content-Security-Policy can forbid them all (cupboard/csp.py).
// On a narrow screen the legend goes under the plot and the chart grows taller, so the
// bars keep most of the height instead of collapsing under a long legend.
(function () {
  const config = { displaylogo: false, responsive: true };
  function sized(layout, traces, width) {
    const fitted = Object.assign({}, layout, { autosize: true });
    if (width < 700) {
      fitted.legend = Object.assign({}, layout.legend, { orientation: "h", x: 0, y: -0.15, yanchor: "top",
        title: Object.assign({}, (layout.legend || {}).title, { side: "top" }) });
      fitted.margin = Object.assign({}, layout.margin, { l: 40, r: 10 });
      fitted.height = layout.height || 380 + (traces > 1 ? 22 * traces : 0);
    }
    return fitted;
  }
  document.querySelectorAll(".plotly-chart").forEach((div) => {
    const data = div.querySelector('script[type="application/json"]');
    const figure = JSON.parse(data.textContent);
    data.remove();
    Plotly.newPlot(div, figure.data, sized(figure.layout, figure.data.length, div.clientWidth), config);
  });
})();
