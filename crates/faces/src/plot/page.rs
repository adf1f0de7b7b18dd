//! The plot page: HTML, CSS and a small canvas chart script, all inline so
//! the file opens offline. `{{TITLE}}` and `{{DATA}}` are filled in by
//! `render_html`. Interactions: click a legend entry to hide/show a series,
//! hover for the nearest point, drag to zoom into a time range, double-click
//! to reset.

pub const TEMPLATE: &str = r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{TITLE}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 14px system-ui, sans-serif; margin: 16px; color: #222; background: #fff; }
  h1 { font-size: 18px; margin: 0 0 8px; }
  #wrap { position: relative; }
  #chart { width: 100%; height: 70vh; min-height: 320px; display: block; cursor: crosshair; }
  #legend { margin: 8px 0; display: flex; flex-wrap: wrap; gap: 6px 18px; }
  #legend label { cursor: pointer; user-select: none; }
  .sw { display: inline-block; width: 12px; height: 12px; margin: 0 4px -1px 2px; border-radius: 2px; }
  #tip { position: absolute; pointer-events: none; background: rgba(255,255,255,.95); border: 1px solid #999;
         padding: 4px 6px; font-size: 12px; white-space: pre; display: none; }
  #status { color: #666; font-size: 12px; }
</style>
</head>
<body>
<h1 id="title">{{TITLE}}</h1>
<div id="legend"></div>
<div id="wrap"><canvas id="chart"></canvas><div id="tip"></div></div>
<div id="status">drawing…</div>
<script id="plot-data" type="application/json">{{DATA}}</script>
<script>
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("plot-data").textContent);
  var canvas = document.getElementById("chart");
  var ctx = canvas.getContext("2d");
  var tip = document.getElementById("tip");
  var statusEl = document.getElementById("status");
  var OK = ["#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];
  var ERR = ["#d62728", "#ff7f0e", "#a50f15", "#e6550d"];
  var series = data.series, okN = 0, errN = 0;
  series.forEach(function (s) {
    s.color = s.kind === "ok" ? OK[okN++ % OK.length] : ERR[errN++ % ERR.length];
    s.visible = true;
  });
  var M = { l: 72, r: 16, t: 12, b: 44 };
  var view = null, drag = null, geom = null;

  function extent() {
    var x0 = Infinity, x1 = -Infinity, y1 = 0;
    series.forEach(function (s) {
      if (!s.visible) return;
      s.points.forEach(function (p) {
        if (p[0] < x0) x0 = p[0];
        if (p[0] > x1) x1 = p[0];
        if (p[1] > y1) y1 = p[1];
      });
    });
    if (!isFinite(x0)) { x0 = 0; x1 = 1; }
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= 0) y1 = 1;
    return { x0: x0, x1: x1, y0: 0, y1: y1 * 1.05 };
  }

  function ticks(lo, hi, n) {
    var span = hi - lo, raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * mag; }).find(function (s) { return span / s <= n; }) || 10 * mag;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
    return out;
  }

  function fmt(v) { return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3); }

  function draw() {
    var dpr = window.devicePixelRatio || 1, W = canvas.clientWidth, H = canvas.clientHeight;
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    var v = view || extent(), pw = W - M.l - M.r, ph = H - M.t - M.b;
    var sx = function (x) { return M.l + (x - v.x0) / (v.x1 - v.x0) * pw; };
    var sy = function (y) { return M.t + ph - (y - v.y0) / (v.y1 - v.y0) * ph; };
    geom = { v: v, sx: sx, sy: sy, pw: pw, ph: ph };
    ctx.font = "12px system-ui, sans-serif"; ctx.lineWidth = 1;
    ctx.strokeStyle = "#e5e5e5"; ctx.fillStyle = "#444";
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    ticks(v.x0, v.x1, Math.max(2, pw / 90)).forEach(function (t) {
      var x = Math.round(sx(t)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, M.t); ctx.lineTo(x, M.t + ph); ctx.stroke();
      ctx.fillText(fmt(t), x, M.t + ph + 6);
    });
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    ticks(v.y0, v.y1, Math.max(2, ph / 50)).forEach(function (t) {
      var y = Math.round(sy(t)) + 0.5;
      ctx.beginPath(); ctx.moveTo(M.l, y); ctx.lineTo(M.l + pw, y); ctx.stroke();
      ctx.fillText(fmt(t), M.l - 6, y);
    });
    ctx.strokeStyle = "#888"; ctx.strokeRect(M.l + 0.5, M.t + 0.5, pw, ph);
    ctx.textAlign = "center"; ctx.textBaseline = "bottom";
    ctx.fillText("Seconds elapsed", M.l + pw / 2, H - 2);
    ctx.save(); ctx.translate(14, M.t + ph / 2); ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "top"; ctx.fillText("Latency (ms)", 0, 0); ctx.restore();

    ctx.save(); ctx.beginPath(); ctx.rect(M.l, M.t, pw, ph); ctx.clip();
    var drawnSeries = 0, drawnPoints = 0;
    series.forEach(function (s) {
      if (!s.visible) return;
      var n = 0;
      ctx.strokeStyle = s.color; ctx.fillStyle = s.color; ctx.lineWidth = 1.25;
      ctx.beginPath();
      s.points.forEach(function (p) {
        if (p[0] < v.x0 || p[0] > v.x1) return;
        var x = sx(p[0]), y = sy(p[1]);
        if (n === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
        n++;
      });
      ctx.stroke();
      if (n < 400) s.points.forEach(function (p) {
        if (p[0] < v.x0 || p[0] > v.x1) return;
        ctx.fillRect(sx(p[0]) - 1.5, sy(p[1]) - 1.5, 3, 3);
      });
      if (n > 0) { drawnSeries++; drawnPoints += n; }
    });
    ctx.restore();
    if (drag && drag.x1 !== undefined) {
      ctx.fillStyle = "rgba(30,120,200,0.15)";
      ctx.fillRect(Math.min(drag.x0, drag.x1), M.t, Math.abs(drag.x1 - drag.x0), ph);
    }
    document.body.setAttribute("data-drawn-series", String(drawnSeries));
    document.body.setAttribute("data-drawn-points", String(drawnPoints));
    statusEl.textContent = drawnSeries + " series drawn, " + drawnPoints + " points" +
      (view ? " (zoomed: double-click to reset)" : "") + ". Drag to zoom; click a legend entry to hide it.";
  }

  function buildLegend() {
    var legend = document.getElementById("legend");
    series.forEach(function (s, i) {
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox"; box.checked = true; box.setAttribute("data-series", String(i));
      box.addEventListener("change", function () { s.visible = box.checked; draw(); });
      var sw = document.createElement("span");
      sw.className = "sw"; sw.style.background = s.color;
      label.appendChild(box); label.appendChild(sw);
      label.appendChild(document.createTextNode(s.name + " (" + (s.kind === "ok" ? "OK" : "ERROR") + ", " +
        s.total + " requests" + (s.points.length < s.total ? ", " + s.points.length + " shown" : "") + ")"));
      legend.appendChild(label);
    });
  }

  function nearest(mx, my) {
    var best = null, bd = 15 * 15;
    series.forEach(function (s) {
      if (!s.visible) return;
      s.points.forEach(function (p) {
        var dx = geom.sx(p[0]) - mx, dy = geom.sy(p[1]) - my, d = dx * dx + dy * dy;
        if (d < bd) { bd = d; best = { s: s, p: p }; }
      });
    });
    return best;
  }

  function pos(e) { var r = canvas.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; }
  canvas.addEventListener("mousedown", function (e) { drag = { x0: pos(e).x }; });
  canvas.addEventListener("mousemove", function (e) {
    var m = pos(e);
    if (drag) { drag.x1 = m.x; draw(); return; }
    var hit = geom && nearest(m.x, m.y);
    if (!hit) { tip.style.display = "none"; return; }
    tip.textContent = hit.s.name + " (" + hit.s.kind + ")\nt = " + hit.p[0].toFixed(3) + " s\nlatency = " + hit.p[1].toFixed(3) + " ms";
    tip.style.left = (m.x + 12) + "px"; tip.style.top = (m.y + 12) + "px"; tip.style.display = "block";
  });
  window.addEventListener("mouseup", function () {
    if (drag && drag.x1 !== undefined && Math.abs(drag.x1 - drag.x0) > 5) {
      var g = geom, inv = function (px) { return g.v.x0 + (px - M.l) / g.pw * (g.v.x1 - g.v.x0); };
      var a = inv(Math.min(drag.x0, drag.x1)), b = inv(Math.max(drag.x0, drag.x1)), y1 = 0;
      series.forEach(function (s) {
        if (s.visible) s.points.forEach(function (p) { if (p[0] >= a && p[0] <= b && p[1] > y1) y1 = p[1]; });
      });
      view = { x0: a, x1: b, y0: 0, y1: (y1 || 1) * 1.05 };
    }
    drag = null; draw();
  });
  canvas.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  canvas.addEventListener("dblclick", function () { view = null; draw(); });
  window.addEventListener("resize", draw);
  buildLegend();
  draw();
})();
</script>
</body>
</html>
"##;
