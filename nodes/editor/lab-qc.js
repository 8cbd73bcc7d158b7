/*
 * The Lab sidebar's QC section (nodes/editor/lab-sidebar.js loads it with qc-chart.js): each analyzer's QC state
 * per test at a glance, its open QC events with the results sent since the last good control, the technologist's
 * acceptance (a reason and a corrective action), and a Levey-Jennings chart per test, material and lot with its
 * target (entered from the insert, or the established one accepted). Reads GET lis-bridge/qc and
 * lis-bridge/qc/chart; acts through POST lis-bridge/qc/accept and /target (lis.write).
 *
 *   LisBridgeLabQc.mount(into, ui)   draws into `into`; `ui` lends the sidebar's texts, isolation and problem line
 */
(function () {
    "use strict";

    var STATE_COLOURS = { "in-control": "#3a3", warning: "#c80", rejected: "#c33", accepted: "#c80", establishing: "#37a", "no-qc-today": "#888" };
    var ACTIONS = ["rerun-in-control", "recalibrated", "new-reagent", "accepted-as-is"];

    function mount(into, ui) {
        var _ = ui._;
        var summary = $('<div class="lis-lab-qc-summary" style="margin-bottom: 6px; opacity: 0.85;"></div>').appendTo(into);
        var list = $('<div class="lis-lab-qc"></div>').appendTo(into);
        // Which charts are open, so a refresh draws them again rather than closing them under the reader.
        var open = {};
        // What the technologist has chosen and typed in each event's form, kept across refreshes (a busy lab's
        // journal changes every few seconds), and the data last drawn: the same answer is not drawn again.
        var drafts = {};
        var drawn = null;
        var refocus = null;

        function post(url, body) {
            ui.hideProblem();
            return $.ajax({ url: url, method: "POST", contentType: "application/json", data: JSON.stringify(body) }).fail(ui.showProblem).always(ui.refreshAll);
        }
        function time(iso) { return iso ? new Date(iso).toLocaleString() : ""; }
        function badge(state) {
            return $('<span class="lis-lab-qc-state" style="font-weight: bold;"></span>').attr("data-state", state).css("color", STATE_COLOURS[state] || "#888").text(_("qc.state." + state));
        }
        function seriesKey(a, t, s) { return [a.analyzer, t.test, s.material, s.lot].join("\u0000"); }

        function eventRow(a, t, e) {
            var box = $('<div class="lis-lab-qc-event" style="' + ui.BOX + ' border-color: #c33;"></div>').attr("data-run", e.run);
            var rules = [];
            e.violations.forEach(function (v) { if (rules.indexOf(v.rule) < 0) { rules.push(v.rule); } });
            $('<div style="font-weight: bold;"></div>').text(_("qc.event", { at: time(e.at), rules: rules.join(", ") })).appendTo(box);
            var sent = e.review.items.map(function (i) { return i.sample; });
            var review = $('<div class="lis-lab-qc-review"></div>').appendTo(box);
            if (sent.length === 0) { review.text(_("qc.reviewNone")); }
            else {
                review.append(ui.plain(_("qc.review", { count: sent.length + e.review.more, n: sent.length + e.review.more }) + " "));
                ui.isolatedList(review, sent);
                if (e.review.more > 0) { review.append(ui.plain(" " + _("qc.reviewMore", { n: e.review.more }))); }
            }
            var key = [a.analyzer, t.test, e.run].join("\u0000");
            var draft = drafts[key] || { action: "", reason: "" };
            var form = $('<div class="lis-lab-qc-accept" style="margin-top: 4px;"></div>').appendTo(box);
            var action = $('<select class="lis-lab-qc-action" style="width: 100%; margin-bottom: 2px;"></select>').appendTo(form);
            $("<option>").val("").text(_("qc.chooseAction")).appendTo(action);
            ACTIONS.forEach(function (x) { $("<option>").val(x).text(_("qc.action." + x)).appendTo(action); });
            action.val(draft.action);
            var reason = $('<input type="text" class="lis-lab-qc-reason" style="width: 100%; margin-bottom: 2px;">').attr("placeholder", _("qc.reason")).attr("data-key", key).val(draft.reason).appendTo(form);
            var keep = function () { drafts[key] = { action: action.val() || "", reason: reason.val() }; };
            action.on("change", keep);
            reason.on("input", keep);
            if (refocus === key) {
                setTimeout(function () { var el = reason[0]; el.focus(); el.setSelectionRange(el.value.length, el.value.length); }, 0);
            }
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-qc-accept-button"></button>').text(_("qc.accept")).prop("disabled", !ui.mayAct)
                .on("click", function () {
                    if (!action.val() || reason.val().trim() === "") { ui.say(_("qc.acceptNeeds")); return; }
                    post("lis-bridge/qc/accept", { analyzer: a.analyzer, test: t.test, run: e.run, action: action.val(), reason: reason.val().trim() }).done(function () { delete drafts[key]; });
                }).appendTo(form);
            return box;
        }

        function chartBox(a, t, s, days) {
            var box = $('<div class="lis-lab-qc-chart-box" style="margin-top: 4px;"></div>');
            var bar = $('<div style="margin-bottom: 4px;"></div>').appendTo(box);
            [30, 90].forEach(function (d) {
                $('<button type="button" class="red-ui-button red-ui-button-small"></button>').addClass("lis-lab-qc-days-" + d).text(_("qc.days", { n: d })).toggleClass("selected", d === days)
                    .on("click", function () { open[seriesKey(a, t, s)] = d; box.replaceWith(chartBox(a, t, s, d)); }).appendTo(bar);
                bar.append(ui.plain(" "));
            });
            var chart = $('<div class="lis-lab-qc-chart"></div>').appendTo(box);
            var drawnChart = null;
            var q = $.param({ analyzer: a.analyzer, test: t.test, material: s.material, lot: s.lot, days: days });
            $.getJSON("lis-bridge/qc/chart?" + q).done(function (data) {
                // As wide as the sidebar is; a narrower one than the chart's least width shrinks it to fit.
                drawnChart = window.LisBridgeQcChart.mount(chart, data, { width: chart.innerWidth() || 560, height: 240 });
            }).fail(ui.showProblem);
            var targets = $('<div style="margin-top: 4px;"></div>').appendTo(box);
            // A point out of the statistics (a bubble, a mislabelled cup), with why; drawn hollow from then on.
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-qc-exclude"></button>').text(_("qc.exclude")).prop("disabled", !ui.mayAct)
                .on("click", function () {
                    var p = drawnChart && drawnChart.data("point");
                    if (!p) { ui.say(_("qc.excludeWhich")); return; }
                    if (p.excluded) { ui.say(_("qc.excludedAlready")); return; }
                    var why = window.prompt(_("qc.excludeWhy", { value: p.value, at: time(p.at) }), "");
                    if (why === null || why.trim() === "") { return; }
                    post("lis-bridge/qc/exclude", { analyzer: a.analyzer, test: t.test, material: s.material, lot: s.lot, id: p.id, at: p.at, reason: why.trim() })
                        .done(function () { box.replaceWith(chartBox(a, t, s, days)); });
                }).appendTo(targets);
            targets.append(ui.plain(" "));
            if (s.proposed) {
                $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-qc-accept-target"></button>')
                    .text(_("qc.acceptTarget", { mean: s.proposed.mean.toPrecision(4), sd: s.proposed.sd.toPrecision(3), n: s.proposed.n })).prop("disabled", !ui.mayAct)
                    .on("click", function () { post("lis-bridge/qc/target", { analyzer: a.analyzer, test: t.test, material: s.material, lot: s.lot, proposed: true }); }).appendTo(targets);
                targets.append(ui.plain(" "));
            }
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-qc-enter-target"></button>').text(_("qc.enterTarget")).prop("disabled", !ui.mayAct)
                .on("click", function () {
                    var text = window.prompt(_("qc.enterTargetWhich", { test: t.test, material: s.material, lot: s.lot }), s.target ? s.target.mean + " " + s.target.sd : "");
                    if (text === null) { return; }
                    var parts = text.trim().split(/[\s;]+/);
                    post("lis-bridge/qc/target", { analyzer: a.analyzer, test: t.test, material: s.material, lot: s.lot, mean: Number(parts[0]), sd: Number(parts[1]) });
                }).appendTo(targets);
            return box;
        }

        function seriesRow(a, t, s) {
            var row = $('<div class="lis-lab-qc-series" style="margin: 2px 0 2px 8px;"></div>').attr("data-material", s.material).attr("data-lot", s.lot);
            var what = s.target ? _("qc.target", { mean: s.target.mean, sd: s.target.sd, source: _("qc.source." + s.target.source) })
                : _("qc.establishingN", { n: s.proposed ? s.proposed.n : s.count });
            row.append(ui.isolated(s.material + " · " + s.lot)).append(ui.plain(" · " + _("qc.points", { count: s.count, n: s.count }) + " · " + what));
            if (s.expired) { row.append($('<span class="lis-lab-qc-expired" style="color: #c33;"></span>').text(" " + _("qc.expired", { expiry: s.expiry }))); }
            row.append(ui.plain(" "));
            var key = seriesKey(a, t, s);
            var holder = $("<div></div>");
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-qc-open-chart"></button>').text(_("qc.openChart"))
                .on("click", function () {
                    if (open[key]) { delete open[key]; holder.empty(); return; }
                    open[key] = 30;
                    holder.empty().append(chartBox(a, t, s, 30));
                }).appendTo(row);
            holder.appendTo(row);
            if (open[key]) { holder.append(chartBox(a, t, s, open[key])); }
            return row;
        }

        function testRow(a, t) {
            var box = $('<div class="lis-lab-qc-test" style="' + ui.BOX + '"></div>').attr("data-test", t.test).attr("data-state", t.state);
            var head = $("<div></div>").appendTo(box);
            head.append($("<b></b>").append(ui.isolated(t.test))).append(ui.plain(" ")).append(badge(t.state));
            if (t.latest) { head.append(ui.plain(" · " + _("qc.lastRun", { at: time(t.latest.at) }))); }
            $('<div class="lis-lab-qc-rules" style="opacity: 0.8;"></div>').text(_("qc.rules", { rules: t.rules })).appendTo(box);
            t.events.forEach(function (e) { box.append(eventRow(a, t, e)); });
            t.series.forEach(function (s) { box.append(seriesRow(a, t, s)); });
            return box;
        }

        function refresh() {
            return $.getJSON("lis-bridge/qc").done(function (data) {
                // Its analyzers only: the answer's own time ("at") changes at every read.
                var json = JSON.stringify(data.analyzers || []);
                if (json === drawn) { return; }
                drawn = json;
                // The reason being typed keeps the focus through the redraw.
                refocus = $(document.activeElement).filter(".lis-lab-qc-reason").attr("data-key") || null;
                list.empty();
                var analyzers = data.analyzers || [];
                var rejected = 0;
                analyzers.forEach(function (a) { a.tests.forEach(function (t) { if (t.state === "rejected") { rejected++; } }); });
                summary.text(analyzers.length === 0 ? _("qc.none") : rejected > 0 ? _("qc.rejectedCount", { count: rejected, n: rejected }) : _("qc.allWell", { count: analyzers.length, n: analyzers.length }));
                analyzers.forEach(function (a) {
                    var box = $('<div class="lis-lab-qc-analyzer" style="margin-bottom: 6px;"></div>').attr("data-analyzer", a.analyzer).appendTo(list);
                    $('<div style="font-weight: bold;"></div>').append(ui.isolated(a.name)).appendTo(box);
                    if (a.error) { $('<div style="color: var(--red-ui-text-color-error, #d00);"></div>').text(a.error).appendTo(box); }
                    if (!a.error && a.tests.length === 0) { $('<div style="opacity: 0.8;"></div>').text(_("qc.noControls")).appendTo(box); }
                    a.tests.forEach(function (t) { box.append(testRow(a, t)); });
                });
            }).fail(ui.showProblem);
        }
        return { refresh: refresh };
    }

    window.LisBridgeLabQc = { mount: mount };
})();
