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
 *     written: function (answer) { ... },  // new overrides and preview: put them in the dialog
 *     setting: function (key, value) { ... } // optional: one top-level override chosen here (a file's delimiter)
 *   }) -> { render(previewAnswer) }           // called once the preview's tables are drawn
 *
 * The same with the keyboard alone: the capture is one Tab stop (roving
 * tabindex), arrow keys move from value to value (Left/Right in reading order,
 * Up/Down to the nearest value of the line above or below, Home/End within
 * the line, Ctrl+Home/End over the capture), Enter or Space opens the role
 * menu; in the menu arrow keys, Home/End and Tab move, Enter chooses, Escape
 * closes it and gives focus back. The values of the results tables are a Tab
 * stop per table, moved in the same way. After a pointing redraws everything,
 * a keyboard user's focus goes back to the same place. A mouse user sees and
 * does what they always did: focus rings are :focus-visible only, and focus is
 * only moved for keys.
 *
 * Everything the analyzer sent is drawn with textContent ($.text), never as HTML.
 */
(function () {
    "use strict";
    if (window.LisBridgeDialectPointing) { return; }

    var MONO = { "font-family": "monospace", "font-size": "smaller", "white-space": "pre-wrap", "word-break": "break-all" };
    /** Preview tables a value may be pointed at in. */
    var TABLES = "table.lis-dialect-results, table.lis-dialect-unassigned, table.lis-dialect-qc";
    var TABLE_CELLS = "table.lis-dialect-results td, table.lis-dialect-unassigned td, table.lis-dialect-qc td";
    var RING = "2px solid var(--red-ui-form-input-focus-color, rgba(85, 150, 230, 0.8))";
    var STYLE = ".lis-dialect-token:focus-visible { outline: " + RING + "; outline-offset: 1px; }" +
        " td.lis-dialect-pointable:focus-visible { outline: " + RING + "; outline-offset: -2px; }";
    /** Tells one dialog's menus from another's for aria-controls. */
    var menus = 0;
    /** Roles said of a line (where a file's table starts): pointed at in the capture only, never in the results. */
    var LINE_ROLES = ["headerRow", "firstRow"];
    /** The role a layout column still to point at is set by (the point answer's `pending`); other paths are shown as they are. */
    var PENDING_ROLE = { "layout.sample": "sampleNumber", "layout.test": "testCode", "layout.value": "value", "layout.units": "units", "layout.flags": "flags" };
    /** How a text file's cells may be separated (a file dialect's `delimiter`). */
    var DELIMITERS = ["comma", "semicolon", "tab"];

    /** "the sample number, the test code": the columns still to point at, each by its role where it has one. */
    function pendingText(paths, t) {
        var said = [];
        paths.forEach(function (p) {
            var role = PENDING_ROLE[p] || (/^layout\.tests(\[|$)/.test(p) ? "value" : null);
            var text = role ? t("role." + role) : p;
            if (said.indexOf(text) < 0) { said.push(text); }
        });
        return said.join(", ");
    }

    /** What a written pointing says beyond its count: columns left out, settings cleared, what is left to point at, a header line clicked. */
    function noteOf(answer, t) {
        var said = "";
        if (answer.dropped && answer.dropped.length > 0) { said += t("dropped", { columns: answer.dropped.join(", ") }); }
        if (answer.cleared && answer.cleared.length > 0) { said += t("cleared", { settings: answer.cleared.join(", ") }); }
        if (answer.pending && answer.pending.length > 0) { said += t("pending", { columns: pendingText(answer.pending, t) }); }
        if (answer.headerLine !== undefined) { said += t("headerLine", { line: answer.headerLine }); }
        return said;
    }

    /**
     * "R-3 component 2", "OBX-4.1", "line 19 column 2": how a value's aria-label names its place, read from the
     * shapes the protocols give (lib/protocols/<p>/capture.ts); the line's label ("R 4") for a place of another
     * shape. `t` looks up in the pointing catalog.
     */
    function placeName(p, lineLabel, several, t) {
        var name;
        if (typeof p.segment === "string") {
            var component = p.component !== undefined ? p.component : p.subcomponent !== undefined ? 1 : undefined;
            name = p.segment + "-" + p.field + (component === undefined ? "" : "." + component) + (p.subcomponent === undefined ? "" : "." + p.subcomponent) +
                (p.repetition === undefined ? "" : " " + t("place.repeat", { n: p.repetition }));
        } else if (typeof p.type === "string") {
            name = p.type + "-" + p.field + (p.component === undefined ? "" : " " + t("place.component", { n: p.component })) +
                (p.repetition === undefined ? "" : " " + t("place.repeat", { n: p.repetition }));
        } else if (p.row !== undefined && p.column !== undefined) {
            name = t("place.cell", { row: p.row, column: p.column });
        } else {
            name = lineLabel;
        }
        return several && p.message !== undefined ? t("place.message", { message: p.message, place: name }) : name;
    }

    function attach(opts) {
        var t = function (key, vars) { return opts.t("pointing." + key, $.extend({ interpolation: { escapeValue: false } }, vars)); };
        var box = $("<div>").addClass("lis-dialect-pointing").css({ "margin-top": "6px" }).insertBefore(opts.before);
        $("<style>").text(STYLE).appendTo(box);
        $("<div>").addClass("lis-dialect-pointing-hint").css({ "font-size": "smaller", color: "var(--red-ui-secondary-text-color)" }).text(t("hint")).appendTo(box);
        var capture = $("<div>").addClass("lis-dialect-capture").attr({ title: t("captureTitle"), role: "group", "aria-label": t("captureLabel") })
            .css($.extend({ "max-height": "180px", overflow: "auto", border: "1px solid var(--red-ui-secondary-border-color, #ddd)", padding: "2px 4px", "margin-top": "2px" }, MONO)).appendTo(box);
        var menuId = "lis-dialect-role-menu-" + (++menus);
        var menu = $("<div>").addClass("lis-dialect-role-menu").attr({ id: menuId, role: "menu", "aria-orientation": "horizontal" })
            .css({ display: "none", margin: "4px 0", padding: "4px", border: "1px solid var(--red-ui-secondary-border-color, #ccc)", background: "var(--red-ui-secondary-background, #f7f7f7)", "font-size": "smaller" }).appendTo(box);
        var pointed = $("<div>").addClass("lis-dialect-pointed").attr({ role: "status", "aria-live": "polite" }).css({ "font-size": "smaller", "margin-top": "2px" }).appendTo(box);
        // A text file's delimiter, chosen here: cells cut at the wrong character cannot be pointed at one by one.
        var cutRow = $("<div>").addClass("lis-dialect-cut").css({ "font-size": "smaller", "margin-top": "2px", display: "none" }).insertAfter(capture);
        var cutId = menuId + "-delimiter";
        $("<label>").attr("for", cutId).css({ width: "auto", "margin-right": "4px" }).text(t("delimiter")).appendTo(cutRow);
        var delimiter = $("<select>").attr("id", cutId).addClass("lis-dialect-delimiter").css({ width: "auto" }).appendTo(cutRow);
        DELIMITERS.forEach(function (d) { $("<option>").val(d).text(t("delimiters." + d)).appendTo(delimiter); });
        delimiter.on("change", function () { if (opts.setting) { opts.setting("delimiter", delimiter.val()); } });
        var roles = ["sampleNumber", "testCode", "value", "units"];
        var chosen = null; // the span or cell clicked, to mark it

        // Keyboard or mouse: focus is moved (into a menu, back to a value) only for someone using keys.
        var keys = false;
        /** The value the menu is for: its element and where it is, to give focus back even once redrawn. */
        var origin = null;
        /** Where focus last was among the values ({ token: [line, index] } or { table, cell: [row, column] }), and where each Tab stop is. */
        var lastAt = null;
        var stops = { capture: null, tables: {} };
        /** A pointing sent by keys: its redraw gives focus back to the value. */
        var refocus = false;

        /** What the line and an open menu belong to: a preview of other overrides or another paste makes them stale. */
        var shownFor = null;
        function signature() {
            var r = opts.request();
            // A loaded file by its name, size and first bytes: comparing megabytes of base64 at every redraw is not needed.
            var file = r.bytes ? [r.fileName, r.bytes.length, r.bytes.slice(0, 96), r.bytes.slice(-96)] : null;
            return JSON.stringify([r.base, r.overrides, r.text, file, r.timeZone]);
        }

        /**
         * Focus a keyboard user is about to lose to the redrawing (on a value, or already gone with a redrawn
         * table), or that a pointing sent by keys gives back to its value. Focus in an open menu stays there.
         */
        function focusLost() {
            var active = document.activeElement;
            if (!keys || lastAt === null) { return false; }
            if (refocus) { return true; }
            return !active || active === document.body || !document.documentElement.contains(active) || $.contains(capture[0], active);
        }

        function render(answer) {
            var restore = focusLost();
            refocus = false;
            // Previews come for the same inputs too (a debounced refresh after a pointing): those keep the line and the menu.
            var now = signature();
            if (shownFor !== null && now !== shownFor) {
                if (keys && lastAt !== null && $.contains(menu[0], document.activeElement)) { restore = true; }
                pointed.empty();
                menu.hide().empty();
                origin = null;
            }
            shownFor = now;
            chosen = null;
            capture.empty();
            if (answer && answer.roles) { roles = answer.roles.map(function (r) { return typeof r === "string" ? r : r.id; }); }
            var c = answer && answer.capture;
            box.toggle(!!c && c.messages.length > 0);
            var framing = answer && answer.paste && answer.paste.form === "file" ? answer.paste.framing : null;
            cutRow.toggle(!!opts.setting && DELIMITERS.indexOf(framing) >= 0);
            if (DELIMITERS.indexOf(framing) >= 0) { delimiter.val(framing); }
            if (c) {
                var several = c.messages.length > 1;
                c.messages.forEach(function (m) {
                    m.lines.forEach(function (line) {
                        var div = $("<div>").addClass("lis-dialect-capture-line").appendTo(capture);
                        line.tokens.forEach(function (tok) {
                            var span = $("<span>").text(tok.text);
                            if (tok.place) {
                                span.addClass("lis-dialect-token").css({ cursor: "pointer", "border-bottom": "1px dotted var(--red-ui-secondary-text-color, #888)" })
                                    .attr({ "data-place": JSON.stringify(tok.place), tabindex: "-1", role: "button", "aria-haspopup": "menu", "aria-controls": menuId,
                                        "aria-label": placeName(tok.place, line.label, several, t) + ": " + tok.text })
                                    .data("place", tok.place);
                            }
                            div.append(span);
                        });
                    });
                });
                if (c.truncated) { $("<div>").css("font-style", "italic").text(t("truncated")).appendTo(capture); }
            }
            stops.capture = stop(capture.find(".lis-dialect-token"), tokenAt(stops.capture));
            opts.table.find(TABLES).each(function () { decorate($(this)); });
            if (origin && !document.documentElement.contains(origin.el[0])) { origin.el = elementAt(origin.at) || origin.el; }
            if (restore) {
                var back = elementAt(lastAt) || capture.find('.lis-dialect-token[tabindex="0"]')[0];
                if (back) { back.focus(); }
            }
        }

        /** The values of a decoded table as a grid: one Tab stop, the pointable cells focusable and marked as opening the menu. */
        function decorate(tbl) {
            var cells = tbl.find("tbody td").filter(function () { return pointable(this); });
            if (cells.length === 0) { return; }
            var prev = tbl.prev();
            tbl.attr({ role: "grid", "aria-label": prev.length ? prev.text() : null });
            cells.addClass("lis-dialect-pointable").attr({ tabindex: "-1", "aria-haspopup": "menu", "aria-controls": menuId });
            var name = tableName(tbl);
            stops.tables[name] = stop(cells, cellAt(stops.tables[name]));
        }

        function pointable(td) {
            return !$(td).is(":first-child") && $(td).text().trim() !== "";
        }

        function tableName(tbl) {
            var m = /lis-dialect-(results|unassigned|qc)/.exec(tbl.attr("class") || "");
            return m ? m[1] : "";
        }

        /** The one element of `all` that Tab reaches: `wanted` when it is one of them, else the first. */
        function stop(all, wanted) {
            var el = wanted && all.index(wanted) >= 0 ? wanted : all[0];
            if (el) { el.setAttribute("tabindex", "0"); }
            return el ? positionOf(el) : null;
        }

        function rove(el) {
            var group = $(el).is(".lis-dialect-token") ? capture.find('.lis-dialect-token[tabindex="0"]') : $(el).closest("table").find('td[tabindex="0"]');
            group.attr("tabindex", "-1");
            el.setAttribute("tabindex", "0");
            el.focus();
        }

        function positionOf(el) {
            var e = $(el);
            if (e.is(".lis-dialect-token")) {
                var line = e.closest(".lis-dialect-capture-line");
                return { token: [capture.children(".lis-dialect-capture-line").index(line), line.find(".lis-dialect-token").index(el)] };
            }
            var tr = e.closest("tr");
            return { table: tableName(e.closest("table")), cell: [tr.parent().children("tr").index(tr), tr.children("td").index(el)] };
        }

        function tokenAt(at) {
            if (!at || !at.token) { return null; }
            var line = capture.children(".lis-dialect-capture-line").eq(at.token[0]);
            return line.find(".lis-dialect-token")[at.token[1]] || line.find(".lis-dialect-token").last()[0] || null;
        }

        function cellAt(at) {
            if (!at || !at.cell) { return null; }
            var td = opts.table.find("table.lis-dialect-" + at.table + " > tbody > tr").eq(at.cell[0]).children("td")[at.cell[1]];
            return td && $(td).is(".lis-dialect-pointable") ? td : null;
        }

        function elementAt(at) {
            if (!at) { return null; }
            return at.token ? tokenAt(at) : cellAt(at) || opts.table.find("table.lis-dialect-" + at.table + ' td[tabindex="0"]')[0] || null;
        }

        function mark(el) {
            if (chosen) { chosen.css("background", "").removeAttr("aria-expanded"); }
            chosen = el ? $(el).css("background", "var(--red-ui-node-selected-color, #ffd37f)").attr("aria-expanded", "true") : null;
        }

        /** Opens the menu for a value; with keys, focus goes into it. */
        function open(el, value, where) {
            origin = { el: $(el), at: positionOf(el) };
            mark(el);
            ask(value, where);
        }

        function items() { return menu.find("button"); }

        /** The menu's items as one Tab stop, the first focused when keys opened it. */
        function shown() {
            var all = items().attr({ role: "menuitem", tabindex: "-1" });
            all.first().attr("tabindex", "0");
            if (keys) { all.first().trigger("focus"); }
        }

        /** The role menu for a value: a button per role, then Cancel. */
        function ask(value, where) {
            menu.empty().show();
            var question = $("<span>").attr("id", menuId + "-question").css("margin-right", "6px").text(t("ask", { value: value })).appendTo(menu);
            menu.attr("aria-labelledby", question.attr("id"));
            roles.forEach(function (role) {
                if (!where.place && LINE_ROLES.indexOf(role) >= 0) { return; }
                $('<button type="button" class="red-ui-button red-ui-button-small">').addClass("lis-dialect-role lis-dialect-role-" + role)
                    .css("margin-right", "4px").text(t("role." + role)).on("click", function () { send(role, where, value); }).appendTo(menu);
            });
            $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-role-cancel">').text(t("cancel")).on("click", function () { close(); }).appendTo(menu);
            shown();
        }

        /** Closes the menu; a keyboard user's focus goes back to the value it was for. */
        function close() {
            menu.hide().empty();
            mark(null);
            giveBack();
        }

        function giveBack() {
            if (!keys || !origin) { return; }
            var el = document.documentElement.contains(origin.el[0]) ? origin.el[0] : elementAt(origin.at);
            if (el) { rove(el); }
        }

        function send(role, where, value) {
            var body = $.extend(opts.request(), { role: role }, where);
            menu.empty().hide();
            // The focused item is gone with the menu: the value keeps focus while the answer is awaited.
            giveBack();
            $.ajax({ url: opts.api + "/point", method: "POST", contentType: "application/json", data: JSON.stringify(body), dataType: "json" })
                .done(function (answer) {
                    if (answer.choices) { choose(role, value, answer.choices); return; }
                    mark(null);
                    if (answer.refused) {
                        pointed.css("color", "var(--red-ui-text-color-error, #c00)").text(t("refused", { reason: answer.refused }));
                        return;
                    }
                    refocus = keys;
                    opts.written(answer);
                    refocus = false;
                    shownFor = signature();
                    var said = answer.already ? t("already", { setting: answer.setting }) : t("changed", { count: answer.changed, setting: answer.setting });
                    pointed.css("color", "").text(said + noteOf(answer, t));
                })
                .fail(function (xhr) {
                    mark(null);
                    var b = xhr.responseJSON || {};
                    pointed.css("color", "var(--red-ui-text-color-error, #c00)").text(t("failed", { reason: [b.message || xhr.statusText].concat(b.errors || []).join(" · ") }));
                });
        }

        /** The value is at several places: one button per place, each sending that place. */
        function choose(role, value, choices) {
            menu.empty().show();
            var question = $("<div>").attr("id", menuId + "-question").addClass("lis-dialect-choices-question").text(t("choose", { value: value, role: t("role." + role) })).appendTo(menu);
            menu.attr("aria-labelledby", question.attr("id"));
            choices.forEach(function (c) {
                $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-choice">').css({ margin: "2px 4px 0 0" }).text(c.label)
                    .on("click", function () { send(role, { place: c.place }, value); }).appendTo(menu);
            });
            $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-role-cancel">').css({ "margin-top": "2px" }).text(t("cancel")).on("click", function () { close(); }).appendTo(menu);
            shown();
        }

        /** The value of a table cell and where to look it up: that row's message of the capture. */
        function cellValue(td) {
            var value = $(td).text().trim();
            var row = $(td).closest("tr").children("td").first().text();
            var message = Number(String(row).split(":")[0]);
            return { value: value, where: message > 0 ? { value: value, message: message } : { value: value } };
        }

        capture.on("click", ".lis-dialect-token", function () {
            open(this, $(this).text(), { place: $(this).data("place") });
        });
        // A value in the decoded tables: looked up in that row's message of the capture.
        opts.table.on("click", TABLE_CELLS, function () {
            if (!pointable(this)) { return; }
            var v = cellValue(this);
            open(this, v.value, v.where);
        });
        opts.table.on("mouseenter", TABLE_CELLS, function () { $(this).css("cursor", "pointer"); });

        // Which way the person works, for where focus goes next.
        // Seen while capturing, before the handlers below act on the same key or click.
        box.add(opts.table).each(function () {
            this.addEventListener("keydown", function () { keys = true; }, true);
            this.addEventListener("mousedown", function () { keys = false; }, true);
        });
        capture.add(opts.table).on("focusin", ".lis-dialect-token, td.lis-dialect-pointable", function () {
            lastAt = positionOf(this);
            if (lastAt.token) { stops.capture = lastAt; } else { stops.tables[lastAt.table] = lastAt; }
        });

        /** Enter opens the menu on keydown, Space on keyup (a Space's keyup would otherwise press the menu's first item). */
        function activation(e, el, opener) {
            if (e.key === "Enter" && e.type === "keydown") { e.preventDefault(); opener(el); return true; }
            if (e.key === " ") { e.preventDefault(); if (e.type === "keyup") { opener(el); } return true; }
            return false;
        }

        capture.on("keydown keyup", ".lis-dialect-token", function (e) {
            if (activation(e, this, function (el) { open(el, $(el).text(), { place: $(el).data("place") }); }) || e.type !== "keydown") { return; }
            var next = tokenMove(this, e);
            if (next !== undefined) {
                e.preventDefault();
                if (next) { rove(next); }
            }
        });

        /** Where a key moves from a token: an element, null (a key of ours at an end), undefined (not our key). */
        function tokenMove(el, e) {
            var all = capture.find(".lis-dialect-token");
            var line = $(el).closest(".lis-dialect-capture-line").find(".lis-dialect-token");
            var i = all.index(el);
            switch (e.key) {
                case "ArrowRight": return all[i + 1] || null;
                case "ArrowLeft": return i > 0 ? all[i - 1] : null;
                case "Home": return e.ctrlKey ? all[0] : line[0];
                case "End": return e.ctrlKey ? all[all.length - 1] : line[line.length - 1];
                case "ArrowDown": case "ArrowUp": return nearestInLine(el, e.key === "ArrowDown" ? 1 : -1);
                default: return undefined;
            }
        }

        /** The value of the next line with values above or below, nearest across. */
        function nearestInLine(el, step) {
            var lines = capture.children(".lis-dialect-capture-line").filter(function () { return $(this).find(".lis-dialect-token").length > 0; });
            var to = lines.index($(el).closest(".lis-dialect-capture-line")) + step;
            if (to < 0 || to >= lines.length) { return null; }
            var target = lines.eq(to);
            var x = center(el), best = null, distance = Infinity;
            target.find(".lis-dialect-token").each(function () {
                var d = Math.abs(center(this) - x);
                if (d < distance) { distance = d; best = this; }
            });
            return best;
        }

        function center(el) {
            var r = el.getBoundingClientRect();
            return r.left + r.width / 2;
        }

        opts.table.on("keydown keyup", "td.lis-dialect-pointable", function (e) {
            if (activation(e, this, function (el) { var v = cellValue(el); open(el, v.value, v.where); }) || e.type !== "keydown") { return; }
            var next = cellMove(this, e);
            if (next !== undefined) {
                e.preventDefault();
                if (next) { rove(next); }
            }
        });

        /** Where a key moves from a table cell, among the pointable ones: as tokenMove, by row and column. */
        function cellMove(el, e) {
            var tr = $(el).closest("tr");
            var rows = tr.parent().children("tr");
            var inRow = tr.children("td.lis-dialect-pointable");
            var all = $(el).closest("table").find("td.lis-dialect-pointable");
            var i = inRow.index(el);
            switch (e.key) {
                case "ArrowRight": return inRow[i + 1] || null;
                case "ArrowLeft": return i > 0 ? inRow[i - 1] : null;
                case "Home": return e.ctrlKey ? all[0] : inRow[0];
                case "End": return e.ctrlKey ? all[all.length - 1] : inRow[inRow.length - 1];
                case "ArrowDown": case "ArrowUp": {
                    var column = tr.children("td").index(el), step = e.key === "ArrowDown" ? 1 : -1;
                    for (var r = rows.index(tr) + step; r >= 0 && r < rows.length; r += step) {
                        var td = rows.eq(r).children("td")[column];
                        if (td && $(td).is(".lis-dialect-pointable")) { return td; }
                    }
                    return null;
                }
                default: return undefined;
            }
        }

        menu.on("keydown", function (e) {
            var all = items();
            var i = all.index(document.activeElement);
            var step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
            if (e.key === "Tab") { step = e.shiftKey ? -1 : 1; }
            var to = step ? (i + step + all.length) % all.length : e.key === "Home" ? 0 : e.key === "End" ? all.length - 1 : -1;
            if (to >= 0 && all.length > 0) {
                e.preventDefault();
                all.attr("tabindex", "-1");
                all.eq(to).attr("tabindex", "0").trigger("focus");
            } else if (e.key === "Escape") {
                // The menu's own Escape: the dialog stays open.
                e.preventDefault();
                e.stopPropagation();
                close();
            }
        });

        box.hide();
        return { render: render };
    }

    window.LisBridgeDialectPointing = { attach: attach, placeName: placeName };
})();
