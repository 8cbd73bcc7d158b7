/*
 * The Levey-Jennings chart of one QC series (analyzer × test × material × lot), drawn from the answer of GET
 * lis-bridge/qc/chart (nodes/shared/lab-routes.ts serves this file as GET lis-bridge/editor/qc-chart.js): the
 * points over time against the target's mean and ±1, 2 and 3 SD, the points in a violation marked with their
 * rules, warnings, excluded points, and the rule set in force. Plain SVG, no charting library: labs are often
 * offline.
 *
 *   LisBridgeQcChart.svg(data, { width, height }) -> the chart as an SVG string (no DOM)
 *   LisBridgeQcChart.mount(container, data, options)  the chart into `container`, with a line under it showing the
 *        hovered or focused point (one point in the tab order; the arrow keys, Home and End move between points);
 *        returns the chart, whose data("point") is the point last shown
 *
 * Everything from the data (names, runs, reasons) is XML-escaped into the SVG, and set with $.text in the DOM.
 */
(function () {
    "use strict";

    var NS = "@lis-bridge/node-red-lis-bridge/lab-sidebar:lab.qc.chart.";
    function _(key, vars) { return RED._(NS + key, vars); }

    var WIDTH = 640;
    var HEIGHT = 260;
    var MARGIN = { left: 24, right: 96, top: 38, bottom: 22 };
    // Half the y range in SD: past ±3.5 SD, so a 1-3s point is drawn on the chart, not at its edge.
    var SPAN_SD = 4;
    // A new lot's target is established from its first this many points.
    var ESTABLISH_POINTS = 20;
    var DAY = 86400000;
    var TICK_DAYS = [1, 2, 5, 7, 10, 15, 30, 60, 90];
    var STATES = ["in-control", "warning", "rejected", "establishing"];
    var SOURCES = ["entered", "message", "established"];
    var COLOUR = { point: "#3465a4", warning: "#d08a00", violation: "#cc2222", excluded: "#888888", sd1: "#999999", sd2: "#d08a00", sd3: "#cc2222" };
    // Inline SVG's <style> reaches the whole page: every selector is under .qc-chart.
    var STYLE = ".qc-chart .qc-point { cursor: pointer; outline: none; }" +
        " .qc-chart .qc-point:focus .qc-marker, .qc-chart .qc-point:hover .qc-marker, .qc-chart .qc-point.qc-current .qc-marker { stroke: currentColor; stroke-width: 2; }";

    function esc(v) {
        return String(v === undefined || v === null ? "" : v).replace(/[&<>"']/g, function (c) {
            return c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;";
        });
    }
    function round(v) { return Math.round(v * 10) / 10; }
    function isNumber(v) { return typeof v === "number" && isFinite(v); }
    function time(iso) { var t = Date.parse(iso); return isFinite(t) ? t : NaN; }

    /** Digits enough to tell the SD lines apart: one past the SD's first significant digit (sd 0.1 -> 2 decimals). */
    function decimalsFor(step) {
        if (!(step > 0)) { return 2; }
        return Math.max(0, Math.min(6, 1 - Math.floor(Math.log10(step))));
    }
    function fixed(v, decimals) {
        var s = v.toFixed(decimals);
        return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
    }
    function signed(v, decimals) { var s = fixed(v, decimals); return Number(s) > 0 ? "+" + s : s; }
    function utcDateTime(iso) {
        var t = time(iso);
        return isFinite(t) ? new Date(t).toISOString().slice(0, 16).replace("T", " ") + " UTC" : String(iso || "");
    }

    /** A catalog text for a value the catalog names; any other value as it came. */
    function known(values, key, v) { return values.indexOf(v) >= 0 ? _(key + v) : String(v); }
    function usable(t) { return !!t && isNumber(t.mean) && isNumber(t.sd) && t.sd > 0; }

    /** 1-2s is the warning rule: a point is a violation only when it is part of another rule. */
    function rejecting(point) {
        return (point.violations || []).filter(function (r) { return r !== "1-2s"; });
    }
    function kindOf(point) {
        if (point.excluded) { return "excluded"; }
        if (rejecting(point).length > 0) { return "violation"; }
        if ((point.violations || []).length > 0 || point.state === "warning") { return "warning"; }
        return "point";
    }

    /** The point's details, plain text: its <title> and the line mount() shows under the chart. */
    function details(point, unit) {
        var parts = [utcDateTime(point.at), String(point.value) + (unit ? " " + unit : "")];
        if (isNumber(point.z)) { parts.push(_("z", { z: signed(point.z, 1) })); }
        if (point.state) { parts.push(known(STATES, "state.", point.state)); }
        if ((point.violations || []).length > 0) { parts.push(_("violates", { rules: point.violations.join(", ") })); }
        if (point.excluded) { parts.push(_("excluded", { reason: point.excluded })); }
        return parts.join(" · ");
    }

    /** The y range and its lines: the target's (or the proposed one's) SDs, else the values' own min and max. */
    function scaleOf(data, points) {
        var centre = usable(data.target) ? { kind: "target", mean: data.target.mean, sd: data.target.sd }
            : usable(data.proposed) ? { kind: "proposed", mean: data.proposed.mean, sd: data.proposed.sd } : null;
        if (centre) {
            return { kind: centre.kind, mean: centre.mean, sd: centre.sd, lo: centre.mean - SPAN_SD * centre.sd, hi: centre.mean + SPAN_SD * centre.sd, decimals: decimalsFor(centre.sd) };
        }
        var lo = Infinity;
        var hi = -Infinity;
        points.forEach(function (p) {
            if (isNumber(p.value)) { lo = Math.min(lo, p.value); hi = Math.max(hi, p.value); }
        });
        if (lo > hi) { lo = 0; hi = 1; }
        var pad = hi > lo ? (hi - lo) * 0.1 : Math.abs(hi) * 0.1 || 1;
        return { kind: "values", min: lo, max: hi, lo: lo - pad, hi: hi + pad, decimals: decimalsFor(hi - lo || pad) };
    }

    /** Date ticks at UTC midnights, as many days apart as keeps them to about seven. */
    function dateTicks(from, to) {
        var days = (to - from) / DAY;
        var step = TICK_DAYS[TICK_DAYS.length - 1];
        for (var i = 0; i < TICK_DAYS.length; i++) {
            if (days / TICK_DAYS[i] <= 7) { step = TICK_DAYS[i]; break; }
        }
        var ticks = [];
        for (var t = Math.ceil(from / DAY) * DAY; t <= to; t += step * DAY) { ticks.push(t); }
        return ticks;
    }

    /** The range shown: [from, to] as sent, else the points' own times (a day wide at least). */
    function timeRange(data, points) {
        var from = time(data.from);
        var to = time(data.to);
        if (isFinite(from) && isFinite(to) && to > from) { return { from: from, to: to }; }
        var times = points.map(function (p) { return time(p.at); }).filter(isFinite);
        var first = times.length ? times[0] : Date.now();
        var last = times.length ? times[times.length - 1] : first;
        return { from: isFinite(from) ? from : first, to: Math.max(isFinite(to) ? to : last, (isFinite(from) ? from : first) + DAY) };
    }

    function text(x, y, className, content, attrs) {
        return '<text class="' + className + '" x="' + round(x) + '" y="' + round(y) + '"' + (attrs || "") + ">" + esc(content) + "</text>";
    }
    function hline(className, y, left, right, attrs) {
        return '<line class="' + className + '" x1="' + round(left) + '" y1="' + round(y) + '" x2="' + round(right) + '" y2="' + round(y) + '"' + attrs + "/>";
    }

    function svg(data, options) {
        data = data || {};
        options = options || {};
        var width = Math.max(320, Number(options.width) || WIDTH);
        var height = Math.max(160, Number(options.height) || HEIGHT);
        var points = Array.isArray(data.points) ? data.points : [];
        var unit = data.unit || "";
        var left = MARGIN.left;
        var right = width - MARGIN.right;
        var top = MARGIN.top;
        var bottom = height - MARGIN.bottom;
        var scale = scaleOf(data, points);
        var range = timeRange(data, points);
        function xOf(t) { return left + (Math.min(Math.max(isFinite(t) ? t : range.from, range.from), range.to) - range.from) / (range.to - range.from) * (right - left); }
        function yOf(v) { return top + (scale.hi - v) / (scale.hi - scale.lo) * (bottom - top); }

        var series = [data.analyzer, data.test, data.material, data.lot].filter(function (v) { return v !== undefined && v !== null && v !== ""; }).join(" · ");
        var status = scale.kind === "target" ? _("target", { mean: fixed(scale.mean, scale.decimals), sd: fixed(scale.sd, scale.decimals) }) +
                (data.target.source ? " · " + known(SOURCES, "source.", data.target.source) : "") + (data.target.by ? " " + _("by", { by: data.target.by }) : "")
            : data.proposed ? _("establishing", { n: data.proposed.n === undefined ? "?" : data.proposed.n, of: ESTABLISH_POINTS })
                : _("noTarget");
        var out = [];
        out.push('<svg xmlns="http://www.w3.org/2000/svg" class="qc-chart qc-scale-' + scale.kind + '" width="' + width + '" height="' + height + '" viewBox="0 0 ' + width + " " + height +
            '" role="group" aria-label="' + esc(_("chart", { series: series })) + '" font-family="sans-serif" font-size="11" fill="currentColor" style="max-width: 100%; height: auto;">');
        out.push("<style>" + STYLE + "</style>");
        out.push('<rect class="qc-plot" x="' + left + '" y="' + top + '" width="' + (right - left) + '" height="' + (bottom - top) +
            '" data-lo="' + scale.lo + '" data-hi="' + scale.hi + '" data-from="' + range.from + '" data-to="' + range.to + '" fill="none" stroke="currentColor" stroke-opacity="0.3"/>');
        out.push('<text class="qc-title" x="' + left + '" y="14"><tspan class="qc-series" font-weight="bold">' + esc(series + (unit ? " (" + unit + ")" : "")) +
            '</tspan><tspan class="qc-target" dx="8">' + esc(status) + "</tspan></text>");
        out.push(text(left, 28, "qc-rules", _("rules", { rules: data.rules || _("noRules") }), ' opacity="0.85"'));

        if (scale.kind === "values") {
            // The values' own highest, lowest and middle: with no target there is no SD to mark.
            (scale.max > scale.min ? [scale.max, (scale.max + scale.min) / 2, scale.min] : [scale.max]).forEach(function (v) {
                out.push(hline("qc-y-tick", yOf(v), left, right, ' stroke="currentColor" stroke-opacity="0.15"'));
                out.push(text(right + 4, yOf(v) + 4, "qc-y-label", fixed(v, scale.decimals)));
            });
        } else {
            [3, 2, 1, 0, -1, -2, -3].forEach(function (k) {
                var v = scale.mean + k * scale.sd;
                var sd = k > 0 ? "+" + k : String(k);
                var look = k === 0 ? ' stroke="currentColor" stroke-width="1.2"'
                    : Math.abs(k) === 1 ? ' stroke="' + COLOUR.sd1 + '" stroke-opacity="0.6"'
                        : Math.abs(k) === 2 ? ' stroke="' + COLOUR.sd2 + '" stroke-dasharray="5 3"' : ' stroke="' + COLOUR.sd3 + '"';
                var label = k === 0 ? _("mean", { value: fixed(v, scale.decimals) }) : _("sd", { k: sd, value: fixed(v, scale.decimals) });
                out.push(hline("qc-sd-line" + (k === 0 ? " qc-mean" : ""), yOf(v), left, right, ' data-sd="' + sd + '"' + look));
                out.push(text(right + 4, yOf(v) + 4, "qc-sd-label", label, ' data-sd="' + sd + '"'));
            });
        }

        dateTicks(range.from, range.to).forEach(function (t) {
            var x = xOf(t);
            var day = new Date(t).toISOString().slice(5, 10);
            out.push('<line class="qc-x-tick" x1="' + round(x) + '" y1="' + bottom + '" x2="' + round(x) + '" y2="' + (bottom + 4) + '" stroke="currentColor" stroke-opacity="0.5"/>');
            out.push(text(x, bottom + 15, "qc-x-label", day, ' text-anchor="middle" data-date="' + day + '"'));
        });

        if (points.length === 0) {
            // Above the middle, clear of the mean line.
            out.push(text((left + right) / 2, (top + bottom) / 2 - 8, "qc-empty", _("empty"), ' text-anchor="middle" opacity="0.8"'));
            out.push("</svg>");
            return out.join("");
        }

        // Where each point is drawn: off the range, at the edge it went past.
        var placed = points.map(function (p) {
            var x = xOf(time(p.at));
            var y = isNumber(p.value) ? yOf(p.value) : NaN;
            // A value that is no number has no place: drawn at the foot, its text in the details.
            var edge = !isNumber(p.value) || y > bottom ? "low" : y < top ? "high" : "";
            return { x: round(x), y: round(edge === "high" ? top : edge === "low" ? bottom : y), edge: edge };
        });
        var path = [];
        points.forEach(function (p, i) {
            if (!p.excluded) { path.push((path.length ? "L" : "M") + placed[i].x + " " + placed[i].y); }
        });
        if (path.length > 1) {
            out.push('<path class="qc-line" d="' + path.join(" ") + '" fill="none" stroke="' + COLOUR.point + '" stroke-width="1" stroke-opacity="0.6"/>');
        }

        // A violation's rules are written once, at its last point here (the one that completed it): a point leaves a
        // rule to the next point not excluded when that one has the rule too.
        var next = new Array(points.length);
        for (var i = points.length - 1, after = null; i >= 0; i--) {
            next[i] = after;
            if (!points[i].excluded) { after = points[i]; }
        }
        // The point focusable by Tab: the latest; the others are reached with the arrow keys.
        var current = points.length - 1;
        points.forEach(function (p, i) {
            var at = placed[i];
            var kind = kindOf(p);
            var colour = COLOUR[kind];
            var classes = "qc-point" + (kind === "point" ? "" : " qc-" + kind) + (at.edge ? " qc-offchart" : "");
            var g = '<g class="' + classes + '" data-point="' + i + '" data-state="' + esc(p.state) + '"' + (at.edge ? ' data-edge="' + at.edge + '"' : "") +
                ' tabindex="' + (i === current ? "0" : "-1") + '"><title>' + esc(details(p, unit)) + "</title>";
            var fill = kind === "excluded" ? "none" : colour;
            // A few pixels' circle is hard to point at: a wider transparent one under it takes the pointer.
            g += '<circle class="qc-hit" cx="' + at.x + '" cy="' + at.y + '" r="7" fill="transparent"/>';
            if (at.edge) {
                var base = at.edge === "high" ? at.y + 9 : at.y - 9;
                g += '<polygon class="qc-marker" points="' + at.x + "," + at.y + " " + round(at.x - 5) + "," + round(base) + " " + round(at.x + 5) + "," + round(base) +
                    '" fill="' + fill + '" stroke="' + colour + '"/>';
            } else {
                var r = kind === "violation" ? 4.5 : kind === "warning" ? 4 : 3;
                g += '<circle class="qc-marker" cx="' + at.x + '" cy="' + at.y + '" r="' + r + '" fill="' + fill + '" stroke="' + colour + '" stroke-width="' + (kind === "excluded" ? 1.5 : 1) + '"/>';
            }
            var label = "";
            if (kind === "violation") {
                g += '<circle class="qc-ring" cx="' + at.x + '" cy="' + at.y + '" r="8" fill="none" stroke="' + colour + '" stroke-width="1.5"/>';
                var later = next[i] ? next[i].violations || [] : [];
                var ends = rejecting(p).filter(function (rule) { return later.indexOf(rule) < 0; });
                if (ends.length > 0) {
                    // Beside the point, not in its group: the group's box stays the marker's, where a pointer aims.
                    var nearRight = at.x > right - 50;
                    var ly = at.y - 11 < top + 10 ? at.y + 19 : at.y - 11;
                    label = text(nearRight ? at.x - 9 : at.x + 9, ly, "qc-rule-label", ends.join(" "), ' data-point="' + i + '" fill="' + colour + '" font-weight="bold" pointer-events="none"' +
                        (nearRight ? ' text-anchor="end"' : ""));
                }
            }
            out.push(g + "</g>" + label);
        });
        out.push("</svg>");
        return out.join("");
    }

    function mount(container, data, options) {
        data = data || {};
        var box = $(container).empty();
        var chart = $('<div class="lis-qc-chart"></div>').html(svg(data, options)).appendTo(box);
        var line = $('<div class="lis-qc-details" aria-live="polite" style="min-height: 1.4em; font-size: 0.9em;"></div>').text(_("hint")).appendTo(box);
        var points = data.points || [];
        function show(el) {
            var i = Number($(el).attr("data-point"));
            if (!points[i]) { return; }
            chart.find(".qc-current").removeClass("qc-current");
            $(el).addClass("qc-current");
            line.text(details(points[i], data.unit));
            // The point a person last pointed at, for what acts on one (the sidebar's Exclude).
            chart.data("point", points[i]);
        }
        chart.on("mouseenter focus", ".qc-point", function () { show(this); });
        chart.on("keydown", ".qc-point", function (evt) {
            var i = Number($(this).attr("data-point"));
            var to = evt.key === "ArrowLeft" ? i - 1 : evt.key === "ArrowRight" ? i + 1 : evt.key === "Home" ? 0 : evt.key === "End" ? points.length - 1 : null;
            if (to === null || to < 0 || to >= points.length) { return; }
            evt.preventDefault();
            var target = chart.find('.qc-point[data-point="' + to + '"]');
            $(this).attr("tabindex", "-1");
            target.attr("tabindex", "0");
            target[0].focus();
        });
        return chart;
    }

    window.LisBridgeQcChart = { svg: svg, mount: mount };
})();
