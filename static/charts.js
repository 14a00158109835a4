// Draws the plotly figures a page carries as JSON data (leaderboards/charts.py as_html):
// <div class="plotly-chart"><script type="application/json">. No inline script runs, so
// the Content-Security-Policy can forbid them all (cupboard/csp.py).
// On a narrow screen the legend goes under the plot and the chart grows taller, so the
// bars keep most of the height instead of collapsing under a long legend; long bar names stand upright.
// There, plotly's mode bar (shown on a tap) would cover the chart's title: it is left out. A
// heatmap wider than tall (teams x the Cup's 18 languages) is turned a quarter, so its columns
// become rows the page scrolls through: 18 columns in 300 px left no room for their names.
(function () {
  const NARROW = 700;
  function sized(layout, traces, width) {
    const fitted = Object.assign({}, layout, { autosize: true });
    if (width < NARROW) {
      fitted.legend = Object.assign({}, layout.legend, { orientation: "h", x: 0, y: 0, yref: "container", yanchor: "bottom",
        title: Object.assign({}, (layout.legend || {}).title, { side: "top" }) });
      fitted.margin = Object.assign({}, layout.margin, { l: 40, r: 10 });
      fitted.height = layout.height || 380 + (traces.length > 1 ? 22 * traces.length : 0);
      // Bars named longer than a language code ("ar.Avg", a team) stand their names upright:
      // plotly's slant made neighbours meet.
      const names = traces.filter((t) => t.type === "bar" && t.orientation !== "h").flatMap((t) => t.x || []);
      if (names.some((name) => typeof name === "string" && name.length > 4)) {
        fitted.xaxis = Object.assign({}, layout.xaxis, { tickangle: -90, automargin: true });
      }
    }
    return fitted;
  }
  function shorter(name) {
    return name.length > 16 ? name.slice(0, 15) + "\u2026" : name;
  }
  // A heatmap's rows and columns swapped, names and all; not one with buttons that restyle it.
  function turned(figure) {
    const trace = figure.data[0];
    const layout = figure.layout;
    if (figure.data.length !== 1 || trace.type !== "heatmap" || layout.updatemenus
        || !trace.x || !trace.y || trace.x.length <= trace.y.length) {
      return figure;
    }
    const z = trace.x.map((_, j) => trace.y.map((_, i) => (trace.z[i] || [])[j]));
    const hover = (trace.hovertemplate || "").replace(/%\{x\}/g, "%{X}").replace(/%\{y\}/g, "%{x}")
      .replace(/%\{X\}/g, "%{y}");
    const rows = layout.yaxis || {};
    const columns = layout.xaxis || {};
    const xaxis = Object.assign({}, rows, { side: "top", tickangle: -90, autorange: true },
      rows.ticktext ? { ticktext: rows.ticktext.map(shorter) } : {});
    const yaxis = Object.assign({}, columns, { side: "left", autorange: "reversed", automargin: true });
    return {
      data: [Object.assign({}, trace, { x: trace.y, y: trace.x, z: z, hovertemplate: hover })],
      // the title above the upright names, not across them
      layout: Object.assign({}, layout, { xaxis: xaxis, yaxis: yaxis, height: 240 + 22 * trace.x.length,
        title: Object.assign({}, layout.title, { yref: "container", y: 1, yanchor: "top", pad: { t: 12 } }),
        margin: Object.assign({}, layout.margin, { t: 170 }) }),
    };
  }
  function draw(div) {
    const data = div.querySelector('script[type="application/json"]');
    const width = div.clientWidth;
    const figure = width < NARROW ? turned(JSON.parse(data.textContent)) : JSON.parse(data.textContent);
    data.remove();
    const config = { displaylogo: false, responsive: true, displayModeBar: width < NARROW ? false : "hover" };
    return Plotly.newPlot(div, figure.data, sized(figure.layout, figure.data, width), config);
  }
  // Drawn from DOMContentLoaded on: the table's own scripts (sorting, search), deferred after this
  // one, run first. The mark is for scripts/bench_first_view.py.
  document.addEventListener("DOMContentLoaded", () => {
    const drawn = [...document.querySelectorAll(".plotly-chart")].map(draw);
    Promise.all(drawn).then(() => performance.mark("charts drawn"));
  });
})();