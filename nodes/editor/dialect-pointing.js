/*
 * Shaping a dialect by pointing, in the dialect section (dialect-editor.js
 * loads this from GET lis-bridge/editor/dialect-pointing.js): the capture
 * drawn as clickable text (the preview answer's `capture`), a small menu of
 * roles on a click ("this is the sample number / test code / value /
 * units"), a prompt when a value clicked in the results table is at several
 * places, and after writing, "N results changed". The dialect editor gives:
 *
 *   LisBridgeDialectPointing.attach({
 *     root: <the section>, before: <element the capture goes before>, table: <the preview's element>,
 *     api: "lis-bridge/dialects", t: <catalog lookup in common.dialectEditor>,
 *     request: function () { return { protocol, base, overrides, text, timeZone }; },
 *     written: function (answer) { ... }   // new overrides and preview: put them in the dialog
 *   }) -> { render(previewAnswer) }
 *
 * Everything the analyzer sent is drawn with textContent ($.text), never as HTML.
 */
(function () {
    "use strict";
    if (window.LisBridgeDialectPointing) { return; }

    var MONO = { "font-family": "monospace", "font-size": "smaller", "white-space": "pre-wrap", "word-break": "break-all" };
    /** Preview table columns a value may be pointed at in, and the role each suggests first. */
    var TABLE_CELLS = "table.lis-dialect-results td, table.lis-dialect-unassigned td, table.lis-dialect-qc td";

    function attach(opts) {
        var t = function (key, vars) { return opts.t("pointing." + key, vars); };
        var box = $("<div>").addClass("lis-dialect-pointing").css({ "margin-top": "6px" }).insertBefore(opts.before);
        $("<div>").addClass("lis-dialect-pointing-hint").css({ "font-size": "smaller", color: "var(--red-ui-secondary-text-color)" }).text(t("hint")).appendTo(box);
        var capture = $("<div>").addClass("lis-dialect-capture").attr("title", t("captureTitle"))
            .css($.extend({ "max-height": "180px", overflow: "auto", border: "1px solid var(--red-ui-secondary-border-color, #ddd)", padding: "2px 4px", "margin-top": "2px" }, MONO)).appendTo(box);
        var menu = $("<div>").addClass("lis-dialect-role-menu")
            .css({ display: "none", margin: "4px 0", padding: "4px", border: "1px solid var(--red-ui-secondary-border-color, #ccc)", background: "var(--red-ui-secondary-background, #f7f7f7)", "font-size": "smaller" }).appendTo(box);
        var pointed = $("<div>").addClass("lis-dialect-pointed").css({ "font-size": "smaller", "margin-top": "2px" }).appendTo(box);
        var roles = ["sampleNumber", "testCode", "value", "units"];
        var chosen = null; // the span or cell clicked, to mark it

        /** What the line and an open menu belong to: a preview of other overrides or another paste makes them stale. */
        var shownFor = null;
        function signature() {
            var r = opts.request();
            return JSON.stringify([r.base, r.overrides, r.text, r.timeZone]);
        }

        function render(answer) {
            // Previews come for the same inputs too (a debounced refresh after a pointing): those keep the line and the menu.
            var now = signature();
            if (shownFor !== null && now !== shownFor) { pointed.empty(); menu.hide().empty(); }
            shownFor = now;
            chosen = null;
            capture.empty();
            if (answer && answer.roles) { roles = answer.roles.map(function (r) { return typeof r === "string" ? r : r.id; }); }
            var c = answer && answer.capture;
            box.toggle(!!c && c.messages.length > 0);
            if (!c) { return; }
            c.messages.forEach(function (m) {
                m.lines.forEach(function (line) {
                    var div = $("<div>").addClass("lis-dialect-capture-line").appendTo(capture);
                    line.tokens.forEach(function (tok) {
                        var span = $("<span>").text(tok.text);
                        if (tok.place) {
                            span.addClass("lis-dialect-token").css({ cursor: "pointer", "border-bottom": "1px dotted var(--red-ui-secondary-text-color, #888)" })
                                .attr("data-place", JSON.stringify(tok.place)).data("place", tok.place);
                        }
                        div.append(span);
                    });
                });
            });
            if (c.truncated) { $("<div>").css("font-style", "italic").text(t("truncated")).appendTo(capture); }
        }

        function mark(el) {
            if (chosen) { chosen.css("background", ""); }
            chosen = el ? $(el).css("background", "var(--red-ui-node-selected-color, #ffd37f)") : null;
        }

        /** The role menu for a value: a button per role, then Cancel. */
        function ask(value, where) {
            menu.empty().show();
            $("<span>").css("margin-right", "6px").text(t("ask", { value: value, interpolation: { escapeValue: false } })).appendTo(menu);
            roles.forEach(function (role) {
                $('<button type="button" class="red-ui-button red-ui-button-small">').addClass("lis-dialect-role lis-dialect-role-" + role)
                    .css("margin-right", "4px").text(t("role." + role)).on("click", function () { send(role, where, value); }).appendTo(menu);
            });
            $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-role-cancel">').text(t("cancel")).on("click", close).appendTo(menu);
        }

        function close() { menu.hide().empty(); mark(null); }

        function send(role, where, value) {
            var body = $.extend(opts.request(), { role: role }, where);
            menu.empty().hide();
            $.ajax({ url: opts.api + "/point", method: "POST", contentType: "application/json", data: JSON.stringify(body), dataType: "json" })
                .done(function (answer) {
                    if (answer.choices) { choose(role, value, answer.choices); return; }
                    mark(null);
                    if (answer.refused) {
                        pointed.css("color", "var(--red-ui-text-color-error, #c00)").text(t("refused", { reason: answer.refused, interpolation: { escapeValue: false } }));
                        return;
                    }
                    opts.written(answer);
                    shownFor = signature();
                    pointed.css("color", "").text(t("changed", { count: answer.changed, setting: answer.setting, interpolation: { escapeValue: false } }));
                })
                .fail(function (xhr) {
                    mark(null);
                    var b = xhr.responseJSON || {};
                    pointed.css("color", "var(--red-ui-text-color-error, #c00)").text(t("failed", { reason: [b.message || xhr.statusText].concat(b.errors || []).join(" · "), interpolation: { escapeValue: false } }));
                });
        }

        /** The value is at several places: one button per place, each sending that place. */
        function choose(role, value, choices) {
            menu.empty().show();
            $("<div>").addClass("lis-dialect-choices-question").text(t("choose", { value: value, role: t("role." + role), interpolation: { escapeValue: false } })).appendTo(menu);
            choices.forEach(function (c) {
                $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-choice">').css({ margin: "2px 4px 0 0" }).text(c.label)
                    .on("click", function () { send(role, { place: c.place }, value); }).appendTo(menu);
            });
            $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-role-cancel">').css({ "margin-top": "2px" }).text(t("cancel")).on("click", close).appendTo(menu);
        }

        capture.on("click", ".lis-dialect-token", function () {
            mark(this);
            ask($(this).text(), { place: $(this).data("place") });
        });
        // A value in the decoded tables: looked up in that row's message of the capture.
        opts.table.on("click", TABLE_CELLS, function () {
            var value = $(this).text().trim();
            var row = $(this).closest("tr").children("td").first().text();
            var message = Number(String(row).split(":")[0]);
            if (!value || $(this).is(":first-child")) { return; }
            mark(this);
            ask(value, message > 0 ? { value: value, message: message } : { value: value });
        });
        opts.table.on("mouseenter", TABLE_CELLS, function () { $(this).css("cursor", "pointer"); });

        box.hide();
        return { render: render };
    }

    window.LisBridgeDialectPointing = { attach: attach };
})();
