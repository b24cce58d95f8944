/* tfguard run report: read the value under the pointer on each chart. The page works without this script. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  function fmt(value, unit) {
    var text = Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2);
    return unit === "ops" ? Math.round(value).toLocaleString("en") + " ops" : text + (unit === "%" ? "%" : " " + unit);
  }
  function parse(points) {
    return points.trim().split(/\s+/).map(function (pair) {
      var xy = pair.split(",");
      return [parseFloat(xy[0]), parseFloat(xy[1])];
    });
  }
  function nearest(points, px) {
    var best = points[0];
    for (var i = 1; i < points.length; i++) {
      if (Math.abs(points[i][0] - px) <= Math.abs(best[0] - px)) { best = points[i]; }
    }
    return best;
  }
  function setUp(svg) {
    var out = svg.parentNode.querySelector("output.readout");
    if (!out) { return; }
    var box = svg.getAttribute("data-box").split(" ").map(Number);
    var x0 = +svg.getAttribute("data-x0"), x1 = +svg.getAttribute("data-x1");
    var y0 = +svg.getAttribute("data-y0"), y1 = +svg.getAttribute("data-y1");
    var unit = svg.getAttribute("data-unit"), xname = svg.getAttribute("data-xname");
    var lines = Array.prototype.map.call(svg.querySelectorAll("polyline.series"), function (line) {
      return { label: line.getAttribute("data-label"), points: parse(line.getAttribute("points")) };
    });
    var cursor = document.createElementNS(NS, "line");
    cursor.setAttribute("class", "cursor");
    cursor.setAttribute("y1", box[1]);
    cursor.setAttribute("y2", box[3]);
    cursor.style.display = "none";
    svg.appendChild(cursor);
    var hint = "point at the chart to read its values";
    out.textContent = hint;
    svg.addEventListener("pointermove", function (event) {
      var rect = svg.getBoundingClientRect();
      var px = (event.clientX - rect.left) / rect.width * svg.viewBox.baseVal.width;
      if (px < box[0] || px > box[2] || !lines.length) { return; }
      var x = x0 + (px - box[0]) / (box[2] - box[0]) * (x1 - x0);
      var parts = lines.map(function (line) {
        var point = nearest(line.points, px);
        return line.label + " " + fmt(y0 + (box[3] - point[1]) / (box[3] - box[1]) * (y1 - y0), unit);
      });
      cursor.setAttribute("x1", px);
      cursor.setAttribute("x2", px);
      cursor.style.display = "";
      out.textContent = xname + " " + Math.round(x).toLocaleString("en") + ": " + parts.join(", ");
    });
    svg.addEventListener("pointerleave", function () {
      cursor.style.display = "none";
      out.textContent = hint;
    });
  }
  var charts = document.querySelectorAll("svg.chart");
  Array.prototype.forEach.call(charts, setUp);
  document.documentElement.setAttribute("data-charts", String(charts.length));
  document.documentElement.setAttribute("data-ready", "1");
})();
