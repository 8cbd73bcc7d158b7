/*
 * The mapping table of the lis-test-map dialog, and of a test-mapper that keeps its own table (a flow saved before
 * test maps), loaded from GET lis-bridge/editor/test-mapper-editor.js when the dialog opens: the LIS catalog loaded
 * through the lis-config, the rows with their instrument codes and sub-codes, the way each works, a coded test's
 * values, filter, CSV import and export.
 *
 *   LisBridgeTestMapper.prepare(node, prefix) -> collectRows()   draws the table into the open dialog's
 *        `#<prefix>mapping-table` (prefix: "node-input-" or "node-config-input-"); collectRows() reads it back
 *   LisBridgeTestMapper.size(height, prefix)                     sizes the table to the height the dialog leaves it
 *
 * Everything the LIS catalog or a CSV file says is drawn with textContent ($.text), never as HTML.
 */
(function () {
    "use strict";

    // The rows the runtime reads (lib/mapping/model.ts); the optional text fields are left
    // out when empty so the saved flow only holds what the operator entered.
    var OPTIONAL = ["instrumentSubCode", "lisSubCode", "note"];
    var EDITABLE = ["instrumentCode", "instrumentSubCode", "lisSubCode", "note"];
    var USES = ["", "orders", "results"];
    // The lis-config properties the catalog request needs (nodes/shared/mapping-routes.ts).
    var CONFIG_FIELDS = ["labTestsApiUrl", "bearerTokenEnv", "timeout", "orderAttempts", "orderBackoffMs", "transientRetries", "transientBackoffMs", "maxResponseBytes"];

    function text(v) {
        return v === undefined || v === null ? "" : String(v);
    }

    /** A row as it is saved and sent to the runtime: trimmed, empty optional fields left out. */
    function cleanRow(r) {
        var out = {
            lisTestId: text(r.lisTestId).trim(),
            lisCode: text(r.lisCode).trim(),
            lisName: text(r.lisName).trim(),
            instrumentCode: text(r.instrumentCode).trim()
        };
        var type = text(r.lisType).trim();
        if (type !== "") {
            out.lisType = type;
        }
        OPTIONAL.forEach(function (k) {
            var v = text(r[k]).trim();
            if (v !== "") {
                out[k] = v;
            }
        });
        if (r.stale === true) {
            out.stale = true;
        }
        if (r.use === "orders" || r.use === "results") {
            out.use = r.use;
        }
        if (Array.isArray(r.values)) {
            out.values = r.values.map(function (v) { return { text: text(v.text).trim(), lis: text(v.lis).trim() }; });
        }
        return out;
    }

    // A coded test's values as one line, `text=LIS value` pairs joined by `|`, a backslash escaping |, = and
    // itself: the form the CSV's values column has (lib/mapping/csv.ts).
    function escapeValue(v) {
        return text(v).replace(/[\\|=]/g, function (c) { return "\\" + c; });
    }
    function formatValues(values) {
        return Array.isArray(values) ? values.map(function (v) { return escapeValue(v.text) + "=" + escapeValue(v.lis); }).join("|") : "";
    }
    /** The values a line holds, undefined for an empty one (a numeric test), or null when a pair is not text=value. */
    function parseValues(line) {
        if (text(line).trim() === "") {
            return undefined;
        }
        var pairs = [];
        var parts = [];
        var part = "";
        var bad = false;
        var end = function () {
            parts.push(part);
            if (parts.length !== 2 || parts[0].trim() === "" || parts[1].trim() === "") {
                bad = true;
            }
            pairs.push({ text: (parts[0] || "").trim(), lis: (parts[1] || "").trim() });
            parts = [];
            part = "";
        };
        for (var i = 0; i < line.length; i++) {
            var ch = line[i];
            if (ch === "\\" && i + 1 < line.length) {
                part += line[++i];
            } else if (ch === "=") {
                parts.push(part);
                part = "";
            } else if (ch === "|") {
                end();
            } else {
                part += ch;
            }
        }
        end();
        return bad ? null : pairs;
    }

    /** Sizes the table to whatever height the dialog leaves it. */
    function sizeMappingList(height, prefix) {
        var form = $(prefix === "node-config-input-" ? "#node-config-dialog-edit-form" : "#dialog-form");
        var list = $("#" + (prefix || "node-input-") + "mapping-container");
        if (!form.length || !list.length || !list.data("nodered-editableList")) {
            return;
        }
        var rest = height;
        form.children("div:not(.node-input-mapping-container-row):visible").each(function () {
            rest -= $(this).outerHeight(true);
        });
        var row = form.children("div.node-input-mapping-container-row");
        rest -= (parseInt(row.css("marginTop"), 10) || 0) + (parseInt(row.css("marginBottom"), 10) || 0);
        list.editableList("height", Math.max(160, rest + 12));
    }

    /** The table's rows of the form, in place of the dialog's `#<prefix>mapping-table`. */
    function drawTable(prefix, t) {
        var id = function (s) { return prefix + "mapping-" + s; };
        var button = function (name, icon, label) {
            return $('<button type="button" class="red-ui-button"></button>').attr("id", id(name))
                .append($('<i class="fa"></i>').addClass(icon), " ", $("<span></span>").text(label));
        };
        var rows = [
            $('<div class="form-row lis-tm-toolbar"></div>').append(
                $("<label></label>").append('<i class="fa fa-table"></i> ', $("<b></b>").text(t("label.mapping"))),
                button("load", "fa-refresh", t("label.loadCatalog")),
                button("import", "fa-upload", t("label.importCsv")),
                button("export", "fa-download", t("label.exportCsv")),
                $('<input type="file" accept=".csv,text/csv,text/plain" style="display: none;">').attr("id", id("import-file"))
            ),
            $('<div class="form-row" style="display: none;"></div>').append($('<div class="lis-tm-message"></div>').attr("id", id("message"))),
            $('<div class="form-row lis-tm-filter-row"></div>').append(
                $('<input type="text">').attr({ id: id("filter"), placeholder: t("placeholder.filter") }),
                $('<span class="lis-tm-summary"></span>').attr("id", id("summary"))
            ),
            $('<div class="form-row node-input-mapping-container-row" style="margin-bottom: 0;"></div>').append(
                $('<ol style="min-width: 440px; min-height: 160px;"></ol>').attr("id", id("container"))
            )
        ];
        rows.forEach(function (r) { r.addClass("lis-tm-table-row"); });
        $("#" + id("table")).replaceWith(rows);
    }

    function prepare(node, prefix) {
        prefix = prefix || "node-input-";
        var t = function (key, vars) {
            return RED._("@lis-bridge/node-red-lis-bridge/test-mapper:test-mapper." + key, vars);
        };
        var el = function (s) { return $("#" + prefix + s); };
        drawTable(prefix, t);
        var list = el("mapping-container");
        var message = el("mapping-message");
        var nextSeq = 0;
        var filterText = "";
        var refreshTimer = null;

        // --- the table -------------------------------------------------------------

        // Rows are grouped by LIS test (a test's components stay together) and the
        // groups ordered by name. The order inside a group is kept: it is the order
        // the runtime tries the rows in.
        function compareItems(a, b) {
            for (var i = 0; i < 3; i++) {
                var c = a.key[i].localeCompare(b.key[i], undefined, { numeric: true, sensitivity: "base" });
                if (c !== 0) {
                    return c;
                }
            }
            if (a.key[2] !== b.key[2]) {
                return a.key[2] < b.key[2] ? -1 : 1;
            }
            return a.seq - b.seq;
        }

        function matchesFilter(data) {
            if (!filterText) {
                return true;
            }
            var r = data.row;
            return [r.lisName, r.lisCode, r.instrumentCode].some(function (v) {
                return text(v).toLowerCase().indexOf(filterText) !== -1;
            });
        }

        function allItems() {
            var out = [];
            list.editableList("items").each(function () {
                out.push($(this).data("data"));
            });
            return out;
        }

        function collectRows() {
            return allItems().map(function (d) {
                return cleanRow(d.row);
            });
        }

        function badge(box, kind, label, tip) {
            var b = $('<span class="lis-tm-badge"></span>').addClass("lis-tm-badge-" + kind).text(label).appendTo(box);
            if (tip) {
                b.attr("title", tip);
            }
            return b;
        }

        /** Component, panel and ambiguity badges depend on the other rows: recomputed after every change. */
        function refreshBadges() {
            refreshTimer = null;
            if (!list.data("nodered-editableList")) {
                return; // the dialog has closed meanwhile
            }
            var items = allItems();
            var byTest = Object.create(null);
            var byCode = Object.create(null);
            var byCodeAndSub = Object.create(null);
            var addTo = function (map, key, value) {
                var values = map[key] || (map[key] = []);
                if (values.indexOf(value) === -1) {
                    values.push(value);
                }
            };
            var rowsByKey = Object.create(null);
            var codeOf = Object.create(null);
            items.forEach(function (d) {
                var r = d.row;
                (byTest[r.lisTestId] || (byTest[r.lisTestId] = [])).push(d);
                codeOf[r.lisTestId] = r.lisCode;
                var code = text(r.instrumentCode).trim();
                if (code !== "") {
                    var key = code + "\u0000" + text(r.instrumentSubCode).trim();
                    addTo(byCode, code, r.lisTestId);
                    addTo(byCodeAndSub, key, r.lisTestId);
                    (rowsByKey[key] || (rowsByKey[key] = [])).push(d);
                }
            });
            var codesOf = function (ids) {
                return ids.map(function (id) { return codeOf[id]; }).join(", ");
            };
            var mapped = 0;
            var stale = 0;
            items.forEach(function (d) {
                var r = d.row;
                var box = d.element.find(".lis-tm-badges").empty();
                var group = byTest[r.lisTestId];
                var position = group.indexOf(d);
                var code = text(r.instrumentCode).trim();
                var sub = text(r.instrumentSubCode).trim();
                d.element.toggleClass("lis-tm-continued", position > 0);
                d.element.toggleClass("lis-tm-unmapped", code === "");
                if (r.stale) {
                    stale++;
                    badge(box, "stale", t("badge.stale"), t("tip.stale"));
                }
                if (group.length > 1) {
                    badge(box, "component", t("badge.component", { i: position + 1, n: group.length }), t("tip.component"));
                }
                if (code !== "") {
                    mapped++;
                    var panel = byCode[code];
                    if (panel.length > 1) {
                        badge(box, "panel", t("badge.panel", { n: panel.length }), t("tip.panel", { code: code, tests: codesOf(panel) }));
                    }
                    var label = sub ? code + "/" + sub : code;
                    var same = byCodeAndSub[code + "\u0000" + sub];
                    if (same.length > 1) {
                        badge(box, "ambiguous", t("badge.ambiguous"), t("tip.ambiguous", { code: label, tests: codesOf(same) }));
                    }
                    // Rows of this same LIS test with the same instrument code and sub-code:
                    // results only ever use the first of them.
                    var twins = rowsByKey[code + "\u0000" + sub].filter(function (o) { return o.row.lisTestId === r.lisTestId; });
                    if (twins.length > 1) {
                        badge(box, "ambiguous", t("badge.duplicate"), t("tip.duplicate", { code: label }));
                    }
                }
            });
            el("mapping-summary").text(items.length === 0 ? t("summary.empty") : t("summary.rows", { rows: items.length, mapped: mapped, stale: stale }));
        }

        function scheduleRefresh() {
            if (refreshTimer) {
                clearTimeout(refreshTimer);
            }
            refreshTimer = setTimeout(refreshBadges, 150);
        }

        function applyFilter() {
            var shown = list.editableList("filter", matchesFilter);
            search.searchBox("count", filterText ? shown + " / " + list.editableList("length") : "");
        }

        function addComponent(source) {
            var row = {
                lisTestId: source.row.lisTestId,
                lisCode: source.row.lisCode,
                lisName: source.row.lisName,
                instrumentCode: ""
            };
            if (source.row.lisType) {
                row.lisType = source.row.lisType;
            }
            var data = { row: row, key: source.key, seq: nextSeq++ };
            list.editableList("addItem", data);
            refreshBadges();
            if (data.element) {
                data.element.find(".node-input-mapping-instrumentCode").trigger("focus");
            }
        }

        /** Replaces the table with `rows`, grouped and ordered. */
        function setRows(rows) {
            var keys = Object.create(null);
            var items = (Array.isArray(rows) ? rows : []).map(function (r) {
                var row = cleanRow(r || {});
                if (!(row.lisTestId in keys)) {
                    keys[row.lisTestId] = [row.lisName || row.lisCode, row.lisCode, row.lisTestId];
                }
                return { row: row, key: keys[row.lisTestId], seq: nextSeq++ };
            });
            items.sort(compareItems);
            // Added in order without an active sort (one pass), then sorted from now on.
            list.editableList("sort", null);
            list.editableList("empty");
            items.forEach(function (d) {
                list.editableList("addItem", d);
            });
            list.editableList("sort", compareItems);
            applyFilter();
            refreshBadges();
        }

        list.editableList({
            addButton: false,
            sortable: false,
            removable: true,
            scrollOnAdd: false,
            filter: matchesFilter,
            // Two lines a row, so the table fits the editor's default tray width: the codes above, how the row
            // works (way, values, note) below.
            header: $('<div class="lis-tm-grid lis-tm-header"></div>').append(
                $('<div class="lis-tm-c-lis"></div>').text(t("column.lis")),
                $('<div class="lis-tm-c-instrumentCode"></div>').text(t("column.instrumentCode")),
                $('<div class="lis-tm-c-instrumentSubCode"></div>').text(t("column.instrumentSubCode")).attr("title", t("tip.columnInstrumentSubCode")),
                $('<div class="lis-tm-c-lisSubCode"></div>').text(t("column.lisSubCode")).attr("title", t("tip.columnLisSubCode")),
                $('<div class="lis-tm-c-use"></div>').text(t("column.use")).attr("title", t("tip.columnUse")),
                $('<div class="lis-tm-c-values"></div>').text(t("column.values")).attr("title", t("tip.columnValues")),
                $('<div class="lis-tm-c-note"></div>').text(t("column.note"))
            ),
            addItem: function (container, index, data) {
                var row = data.row;
                data.element = container;
                container.addClass("lis-tm-grid lis-tm-item");
                if (row.stale) {
                    container.addClass("lis-tm-stale");
                }
                var lis = $('<div class="lis-tm-lis"></div>').appendTo(container);
                var name = row.lisName || row.lisCode;
                $('<span class="lis-tm-name node-input-mapping-lisName"></span>').text(name).attr("title", name).appendTo(lis);
                var meta = $('<span class="lis-tm-meta"></span>').appendTo(lis);
                $('<span class="lis-tm-code node-input-mapping-lisCode"></span>').text(row.lisCode).attr("title", t("tip.lisCode")).appendTo(meta);
                $('<span class="node-input-mapping-lisTestId"></span>').text(t("label.id", { id: row.lisTestId })).attr("title", t("tip.lisTestId")).appendTo(meta);
                if (row.lisType) {
                    $('<span class="node-input-mapping-lisType"></span>').text(row.lisType).attr("title", t("tip.lisType")).appendTo(meta);
                }
                $('<span class="lis-tm-badges"></span>').appendTo(lis);

                EDITABLE.forEach(function (field) {
                    var cell = $("<div></div>").addClass("lis-tm-c-" + field).appendTo(container);
                    $('<input type="text" autocomplete="off">')
                        .addClass("node-input-mapping-" + field)
                        .attr("size", field === "instrumentCode" || field === "note" ? 10 : 6)
                        .attr("placeholder", t("placeholder." + field))
                        .val(text(row[field]))
                        .on("input change", function () {
                            row[field] = $(this).val();
                            scheduleRefresh();
                        })
                        .appendTo(cell);
                });

                var use = $('<select class="node-input-mapping-use"></select>').appendTo($('<div class="lis-tm-c-use"></div>').appendTo(container));
                USES.forEach(function (u) {
                    $("<option></option>").val(u).text(t("use." + (u || "both"))).appendTo(use);
                });
                use.val(row.use || "").on("change", function () {
                    row.use = $(this).val() || undefined;
                });
                $('<input type="text" autocomplete="off" class="node-input-mapping-values">')
                    .attr("placeholder", t("placeholder.values"))
                    .attr("title", t("tip.columnValues"))
                    .val(formatValues(row.values))
                    .on("input change", function () {
                        var values = parseValues($(this).val());
                        // A line that is not text=value pairs keeps the values as they were, and says so.
                        $(this).toggleClass("input-error", values === null);
                        if (values !== null) {
                            row.values = values;
                        }
                    })
                    .appendTo($('<div class="lis-tm-c-values"></div>').appendTo(container));

                var actions = $('<div class="lis-tm-c-actions"></div>').appendTo(container);
                var add = $('<button type="button" class="red-ui-button red-ui-button-small node-input-mapping-addComponent"><i class="fa fa-plus"></i></button>')
                    .appendTo(actions)
                    .on("click", function (evt) {
                        evt.preventDefault();
                        addComponent(data);
                    });
                if (row.stale) {
                    add.prop("disabled", true);
                }
                RED.popover.tooltip(add, t("label.addComponent"));
            },
            removeItem: function () {
                refreshBadges();
                applyFilter();
            }
        });

        var search = el("mapping-filter").searchBox({
            style: "compact",
            delay: 200,
            change: function () {
                filterText = text($(this).val()).trim().toLowerCase();
                applyFilter();
            }
        });

        setRows(JSON.parse(JSON.stringify(node.mapping || [])));

        // --- messages inside the dialog --------------------------------------------

        function resize() {
            sizeMappingList($(prefix === "node-config-input-" ? "#node-config-dialog-edit-form" : "#dialog-form").height(), prefix);
        }

        function showMessage(kind, summary, details) {
            message.empty()
                .removeClass("lis-tm-message-error lis-tm-message-warning lis-tm-message-info")
                .addClass("lis-tm-message-" + kind)
                .attr("role", kind === "error" ? "alert" : "status");
            var icon = kind === "error" ? "fa-exclamation-circle" : kind === "warning" ? "fa-exclamation-triangle" : "fa-info-circle";
            $('<i class="fa"></i>').addClass(icon).appendTo(message);
            $('<span class="lis-tm-message-text"></span>').text(" " + summary).appendTo(message);
            if (details && details.length) {
                var ul = $("<ul></ul>").appendTo(message);
                details.forEach(function (d) {
                    $("<li></li>").text(text(d)).appendTo(ul);
                });
            }
            $('<a href="#" class="lis-tm-message-close"><i class="fa fa-times"></i></a>')
                .attr("title", t("label.dismiss"))
                .appendTo(message)
                .on("click", function (evt) {
                    evt.preventDefault();
                    clearMessage();
                });
            message.parent().show();
            resize();
        }

        function clearMessage() {
            message.empty();
            message.parent().hide();
            resize();
        }

        /** What the admin endpoint answered on failure: { message, code, status?, errors? }. */
        function showAjaxError(what, xhr) {
            var body = xhr.responseJSON;
            if (!body && xhr.responseText) {
                try {
                    body = JSON.parse(xhr.responseText);
                } catch (e) {
                    body = null;
                }
            }
            var reason;
            var details = [];
            if (body && typeof body.message === "string") {
                reason = body.message + (body.code ? " (" + body.code + ")" : "");
                if (Array.isArray(body.errors)) {
                    details = body.errors;
                }
            } else if (xhr.status === 0) {
                reason = t("errors.unreachable");
            } else {
                reason = t("errors.httpStatus", { status: xhr.status, text: xhr.statusText || "" });
            }
            showMessage("error", t("errors." + what, { reason: reason }), details);
        }

        function busy(button, on) {
            button.prop("disabled", on);
            button.find("i").toggleClass("fa-spin", on);
        }

        function post(url, body) {
            return $.ajax({
                url: url,
                type: "POST",
                contentType: "application/json",
                data: JSON.stringify(body),
                dataType: "json"
            });
        }

        // --- Load LIS catalog --------------------------------------------------------

        el("mapping-load").on("click", function (evt) {
            evt.preventDefault();
            var button = $(this);
            var configId = el("lis").val();
            var config = configId && configId !== "_ADD_" ? RED.nodes.node(configId) : null;
            if (!config) {
                showMessage("error", t("errors.noConfig"));
                return;
            }
            var body = { config: { id: config.id }, rows: collectRows() };
            CONFIG_FIELDS.forEach(function (k) {
                body.config[k] = config[k];
            });
            // Node-RED never hands a stored password back to the editor: only a token typed
            // (or cleared, "") since the last deploy is here; otherwise the runtime uses the stored one.
            var token = config.credentials ? config.credentials.bearerToken : undefined;
            if (typeof token === "string" && token !== "__PWRD__") {
                body.bearerToken = token;
            }
            var before = Object.create(null);
            body.rows.forEach(function (r) {
                before[r.lisTestId] = true;
            });
            busy(button, true);
            post("lis-bridge/catalog", body).done(function (res) {
                var rows = res && Array.isArray(res.rows) ? res.rows : [];
                var tests = res && Array.isArray(res.tests) ? res.tests.length : 0;
                setRows(rows);
                var added = rows.filter(function (r) { return !before[r.lisTestId]; }).length;
                var stale = rows.filter(function (r) { return r.stale === true; }).length;
                showMessage(stale > 0 ? "warning" : "info", t("messages.catalogLoaded", { tests: tests, rows: rows.length, added: added, stale: stale }));
            }).fail(function (xhr) {
                showAjaxError("catalog", xhr);
            }).always(function () {
                busy(button, false);
            });
        });

        // --- CSV -----------------------------------------------------------------------

        el("mapping-export").on("click", function (evt) {
            evt.preventDefault();
            var button = $(this);
            var rows = collectRows();
            var instrument = text(el("instrument").val()).trim();
            var fileName = (instrument || "mapping").replace(/[\\/:*?"<>|\u0000-\u001f]+/g, "_") + ".csv";
            busy(button, true);
            post("lis-bridge/mapping/csv-export", { rows: rows }).done(function (res) {
                // A byte order mark, so spreadsheets read the file as UTF-8.
                var blob = new Blob(["\ufeff" + text(res && res.csv)], { type: "text/csv;charset=utf-8" });
                var url = URL.createObjectURL(blob);
                var a = $("<a></a>").attr({ href: url, download: fileName }).css("display", "none").appendTo(document.body);
                a[0].click();
                setTimeout(function () {
                    a.remove();
                    URL.revokeObjectURL(url);
                }, 1000);
                showMessage("info", t("messages.exported", { rows: rows.length, file: fileName }));
            }).fail(function (xhr) {
                showAjaxError("export", xhr);
            }).always(function () {
                busy(button, false);
            });
        });

        var fileInput = el("mapping-import-file");
        el("mapping-import").on("click", function (evt) {
            evt.preventDefault();
            fileInput.val("");
            fileInput.trigger("click");
        });
        fileInput.on("change", function () {
            var file = this.files && this.files[0];
            if (!file) {
                return;
            }
            var button = el("mapping-import");
            var reader = new FileReader();
            reader.onerror = function () {
                showMessage("error", t("errors.readFile", { file: file.name }));
            };
            reader.onload = function () {
                busy(button, true);
                post("lis-bridge/mapping/csv", { csv: text(reader.result) }).done(function (res) {
                    var rows = res && Array.isArray(res.rows) ? res.rows : [];
                    var problems = res && Array.isArray(res.problems) ? res.problems : [];
                    if (rows.length === 0) {
                        // Nothing usable: keep the table rather than empty it.
                        showMessage("error", t("errors.importNothing", { file: file.name }), problems);
                        return;
                    }
                    setRows(rows);
                    if (problems.length > 0) {
                        showMessage("warning", t("messages.importedWithProblems", { rows: rows.length, file: file.name, count: problems.length }), problems);
                    } else {
                        showMessage("info", t("messages.imported", { rows: rows.length, file: file.name }));
                    }
                }).fail(function (xhr) {
                    showAjaxError("import", xhr);
                }).always(function () {
                    busy(button, false);
                });
            };
            reader.readAsText(file);
        });

        // "Seen, not mapped" (nodes/editor/test-map-dialog.js) maps a code or a text from outside the table.
        collectRows.tests = function () {
            var seen = Object.create(null);
            return allItems().map(function (d) { return d.row; }).filter(function (r) {
                return seen[r.lisTestId] ? false : (seen[r.lisTestId] = true);
            }).map(function (r) { return { lisTestId: r.lisTestId, name: r.lisName || r.lisCode }; });
        };
        /** The code (`CODE` or `CODE/SUB`) on the test's unmapped row, or on a new component row of it. */
        collectRows.mapCode = function (lisTestId, label) {
            var slash = label.indexOf("/");
            var code = slash === -1 ? label : label.slice(0, slash);
            var sub = slash === -1 ? "" : label.slice(slash + 1);
            var items = allItems().filter(function (d) { return d.row.lisTestId === lisTestId; });
            if (items.length === 0) {
                return false;
            }
            var target = items.filter(function (d) { return text(d.row.instrumentCode).trim() === ""; })[0];
            if (!target) {
                addComponent(items[0]);
                target = allItems().filter(function (d) { return d.row.lisTestId === lisTestId && text(d.row.instrumentCode).trim() === ""; })[0];
            }
            target.row.instrumentCode = code;
            target.row.instrumentSubCode = sub || undefined;
            target.element.find(".node-input-mapping-instrumentCode").val(code);
            target.element.find(".node-input-mapping-instrumentSubCode").val(sub);
            refreshBadges();
            return true;
        };
        /** A coded test's text and its LIS value, on every row reading the code in results. */
        collectRows.addValue = function (label, resultText, lisValue) {
            var slash = label.indexOf("/");
            var code = slash === -1 ? label : label.slice(0, slash);
            var sub = slash === -1 ? "" : label.slice(slash + 1);
            var n = 0;
            allItems().forEach(function (d) {
                var r = d.row;
                if (text(r.instrumentCode).trim() !== code || text(r.instrumentSubCode).trim() !== sub || r.use === "orders") {
                    return;
                }
                r.values = (r.values || []).filter(function (v) { return v.text !== resultText; }).concat([{ text: resultText, lis: lisValue }]);
                d.element.find(".node-input-mapping-values").val(formatValues(r.values)).removeClass("input-error");
                n++;
            });
            return n > 0;
        };
        return collectRows;
    }

    window.LisBridgeTestMapper = { prepare: prepare, size: sizeMappingList };
})();
