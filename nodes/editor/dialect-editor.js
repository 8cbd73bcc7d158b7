/*
 * The dialect section of an analyzer-message node's dialog (astm-message,
 * hl7-message): the site's overrides as JSON with the problems
 * of each setting, the base dialect's values, a pasted capture (or a message
 * the deployed link received lately) and the live preview of what the edited
 * dialect makes of it; and the capture replayed through the deployed flow
 * (lis-bridge/links/<id>/replay), its report shown per sample. Served once by the runtime (GET
 * lis-bridge/editor/dialect-editor.js) and mounted by each dialog:
 *
 *   LisBridgeDialectEditor.mount({
 *     container: $("#..."),                 // where the section goes
 *     overrides: $("#node-input-dialectOverrides"), // the node's own textarea (saved by Node-RED)
 *     base: function () { return "generic-lis2a2"; },
 *     timeZone: function () { return "Europe/Berlin"; },
 *     linkType: "astm-link",               // nodes whose recent messages can be picked and replayed through (none: no picker, no replay)
 *     api: "lis-bridge/dialects",          // GET <api>/<id>, POST <api>/preview and <api>/point (the default)
 *     protocol: "astm",                    // "astm" (default), "hl7", "file": sent with every request
 *     files: true,                         // offer "Load a file…" (and dropping one): its bytes are sent as `bytes` (base64)
 *   }) -> { refresh(), close() }
 *
 * Texts come from the shared catalog (lis-config's common.dialectEditor); a text
 * that differs per protocol is the key with `_<protocol>` (i18next's context).
 * Every call goes through $.ajax, which carries the editor's credentials.
 */
(function () {
    "use strict";
    if (window.LisBridgeDialectEditor) { return; }

    var DEBOUNCE_MS = 300;
    /** The largest file the preview takes (MAX_FILE_BYTES of nodes/shared/dialect-routes.ts): refused here before its bytes are sent. */
    var MAX_FILE_BYTES = 3 * 1024 * 1024;

    function sizeText(bytes) {
        return bytes < 1024 ? bytes + " B" : bytes < 1024 * 1024 ? Math.round(bytes / 1024) + " KB" : (bytes / (1024 * 1024)).toFixed(1) + " MB";
    }

    /** The bytes in base64, a slice at a time (one String.fromCharCode over megabytes overflows the argument list). */
    function base64Of(buffer) {
        var bytes = new Uint8Array(buffer);
        var parts = [];
        for (var i = 0; i < bytes.length; i += 0x8000) { parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000))); }
        return btoa(parts.join(""));
    }

    function t(key, vars) {
        return RED._("@lis-bridge/node-red-lis-bridge/lis-config:common.dialectEditor." + key, vars);
    }
    /** A text that may differ per protocol: `key_hl7` for HL7, `key` when a protocol has none of its own. */
    function tp(protocol, key, vars) {
        return t(key, $.extend({ context: protocol === "astm" ? undefined : protocol }, vars));
    }

    function cell(tag, text, css) {
        var c = $("<" + tag + ">");
        if (tag === "td") { isolatedInto(c, text); } else { c.text(text === undefined || text === null ? "" : String(text)); }
        if (css) { c.css(css); }
        return c;
    }

    /**
     * What an analyzer sent (sample numbers, codes, values) drawn isolated, each value of a list on its own: a
     * right-to-left override in one must not reverse how the next is drawn (issue 23). An array is a list
     * (", " between its values), or { list, separator }.
     */
    function isolated(text) {
        return $('<bdi class="lis-dialect-text" style="unicode-bidi: isolate;">').text(text === undefined || text === null ? "" : String(text));
    }
    function isolatedInto(into, value) {
        var separator = value && value.list ? value.separator : ", ";
        var values = value && value.list ? value.list : Array.isArray(value) ? value : [value];
        values.forEach(function (v, i) {
            if (i > 0) { into.append(document.createTextNode(separator)); }
            into.append(isolated(v));
        });
        return into;
    }

    var CELL = { padding: "1px 6px", "border-bottom": "1px solid var(--red-ui-secondary-border-color, #ddd)", "text-align": "left", "vertical-align": "top" };

    /** A small table: headers, then rows of cell texts; `cls` names it for tests and styles. */
    function table(cls, headers, rows) {
        var tbl = $("<table>").addClass("lis-dialect-" + cls).css({ "border-collapse": "collapse", "font-size": "smaller", width: "100%", "margin-bottom": "6px" });
        var head = $("<tr>").appendTo($("<thead>").appendTo(tbl));
        headers.forEach(function (h) { cell("th", h, CELL).appendTo(head); });
        var body = $("<tbody>").appendTo(tbl);
        rows.forEach(function (r) {
            var tr = $("<tr>").appendTo(body);
            r.forEach(function (v) { cell("td", v, CELL).appendTo(tr); });
        });
        return tbl;
    }

    function heading(text) {
        return $("<div>").css({ "font-weight": "bold", "margin-top": "6px" }).text(text);
    }

    var FSI = "\u2068", PDI = "\u2069";
    /**
     * What an analyzer sent, for an <option> (which cannot hold a <bdi>): each value between FSI and PDI, so a
     * right-to-left override in one sample number cannot reverse the rest of the line. Cut before it is wrapped.
     */
    function isolatedText(value, max) {
        var v = String(value === undefined || value === null ? "" : value);
        return FSI + (v.length > max ? v.slice(0, max - 1) + "\u2026" : v) + PDI;
    }

    /**
     * A recent message in the picker, by its own time and what tells it from the others (the H record reads the
     * same in all): "09:41:02 S-100 GLU 5.4 mmol/L +1", a query "09:41:05 ? S-101".
     */
    function recentEntry(m) {
        var s = m.summary || { samples: [], results: 0, queries: 0 };
        var parts = [m.at ? new Date(m.at).toLocaleTimeString() : ""];
        if (s.queries > 0 && s.results === 0) { parts.push("?"); }
        var samples = s.samples.slice(0, 3).map(function (x) { return isolatedText(x, 32); });
        if (s.samples.length > 3) { samples.push("+" + (s.samples.length - 3)); }
        parts.push(samples.join(", "));
        if (s.firstResult) { parts.push(isolatedText(s.firstResult, 32) + (s.results > 1 ? " +" + (s.results - 1) : "")); }
        if (s.samples.length === 0 && !s.firstResult) {
            // Neither sample nor result: its first record after H (segment after MSH) says what it is.
            parts.push(isolatedText((m.text.split("\n").filter(function (r) { return r !== "" && r.charAt(0) !== "H" && r.indexOf("MSH") !== 0; })[0] || "").replace(/<CR>$/, ""), 40));
        }
        return parts.filter(function (p) { return p !== ""; }).join(" ");
    }

    function mount(opts) {
        var root = $("<div>").addClass("lis-dialect-editor").appendTo(opts.container.empty());
        var api = opts.api || "lis-bridge/dialects";
        var protocol = opts.protocol || "astm";

        // The built-in values the overrides start from.
        var baseRow = $("<div>").css({ "margin-bottom": "4px" }).appendTo(root);
        var showBase = $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-show-base">').text(t("showBase")).appendTo(baseRow);
        var tidy = $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-tidy">').css("margin-left", "4px").text(t("tidy")).appendTo(baseRow);
        var copy = $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-export">').css("margin-left", "4px").text(t("export")).appendTo(baseRow);
        var baseView = $("<pre>").addClass("lis-dialect-base").css({ display: "none", "max-height": "220px", overflow: "auto", "font-size": "smaller" }).appendTo(root);

        var issues = $("<ul>").addClass("lis-dialect-issues").css({ color: "var(--red-ui-text-color-error, #c00)", "font-size": "smaller", margin: "2px 0 6px 16px" }).appendTo(root);

        // The capture to preview: pasted, or picked from a deployed link's trace.
        var pasteRow = $("<div>").css({ "margin-top": "6px" }).appendTo(root);
        $("<span>").text(tp(protocol, "paste")).appendTo(pasteRow);
        var links = $("<select>").addClass("lis-dialect-links").css({ "margin-left": "8px", width: "auto" }).appendTo(pasteRow);
        var recent = $("<select>").addClass("lis-dialect-recent").css({ "margin-left": "4px", width: "auto", display: "none" }).appendTo(pasteRow);
        var paste = $('<textarea rows="6">').addClass("lis-dialect-paste").attr("placeholder", tp(protocol, "pastePlaceholder"))
            .css({ width: "100%", "font-family": "monospace", "font-size": "smaller", "white-space": "pre" }).appendTo(root);
        var pasteInfo = $("<div>").addClass("lis-dialect-paste-info").css({ "font-size": "smaller", color: "var(--red-ui-secondary-text-color)" }).appendTo(root);

        // A file from disk, sent as its own bytes (a workbook cannot be pasted; a text export is decoded by the server as the runtime decodes it).
        var loaded = null; // { name, size, bytes (base64) } while a file stands in for the paste
        var loadedInfo = $("<div>").addClass("lis-dialect-loaded").css({ "font-size": "smaller", display: "none" }).insertBefore(paste);
        if (opts.files) {
            var fileInput = $('<input type="file" class="lis-dialect-file-input">').css("display", "none").appendTo(pasteRow);
            $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-load-file">').css("margin-left", "8px").attr("title", t("loadFileTitle")).text(t("loadFile"))
                .on("click", function () { fileInput.val(""); fileInput.trigger("click"); }).insertAfter(pasteRow.children("span").first());
            fileInput.on("change", function () { if (this.files && this.files[0]) { loadFile(this.files[0]); } });
            // Dropped on the capture (the paste or the clickable capture): only files are taken, dragged text stays a paste.
            var carriesFiles = function (e) { var dt = e.originalEvent && e.originalEvent.dataTransfer; return !!dt && Array.prototype.indexOf.call(dt.types || [], "Files") >= 0; };
            root.on("dragover", ".lis-dialect-paste, .lis-dialect-pointing, .lis-dialect-loaded", function (e) {
                if (carriesFiles(e)) { e.preventDefault(); e.originalEvent.dataTransfer.dropEffect = "copy"; }
            });
            root.on("drop", ".lis-dialect-paste, .lis-dialect-pointing, .lis-dialect-loaded", function (e) {
                var files = carriesFiles(e) && e.originalEvent.dataTransfer.files;
                if (files && files.length) { e.preventDefault(); loadFile(files[0]); }
            });
        }

        function loadFile(file) {
            if (file.size > MAX_FILE_BYTES) {
                showLoaded(t("fileTooLarge", { name: file.name, size: sizeText(file.size), max: sizeText(MAX_FILE_BYTES) }));
                return;
            }
            var reader = new FileReader();
            reader.onload = function () {
                loaded = { name: file.name, size: file.size, bytes: base64Of(reader.result) };
                paste.val("").hide(); // the capture below shows the file's rows
                showLoaded();
                refresh();
            };
            reader.onerror = function () { showLoaded(t("fileUnreadable", { name: file.name, reason: String((reader.error && reader.error.message) || reader.error) })); };
            reader.readAsArrayBuffer(file);
        }
        /** The file standing in for the paste (with Clear), and why a file was not taken, if one was not (what was loaded stays). */
        function showLoaded(problem) {
            loadedInfo.empty().toggle(!!loaded || !!problem);
            if (loaded) {
                $("<span>").text(t("loaded", { name: loaded.name, size: sizeText(loaded.size) })).appendTo(loadedInfo);
                $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-unload-file">').css("margin-left", "6px").text(t("unloadFile"))
                    .on("click", function () { unload(); refresh(); }).appendTo(loadedInfo);
            }
            if (problem) { $("<div>").addClass("lis-dialect-load-problem").css("color", "var(--red-ui-text-color-error, #c00)").text(problem).appendTo(loadedInfo); }
        }
        function unload() {
            loaded = null;
            paste.show();
            loadedInfo.empty().hide();
        }
        /** The capture as the routes take it: a loaded file's bytes, or the paste. */
        function capture() {
            return loaded ? { bytes: loaded.bytes, fileName: loaded.name } : { text: paste.val() };
        }
        var view = $("<div>").addClass("lis-dialect-preview").css({ overflow: "auto" }).appendTo(root);

        // The capture through the deployed flow (POST lis-bridge/links/<id>/replay): a dry run unless sending is chosen and confirmed.
        var replayRow = $("<div>").css({ "margin-top": "6px" }).attr("title", t("replayHint")).appendTo(root);
        var replayButton = $('<button type="button" class="red-ui-button red-ui-button-small lis-dialect-replay-run">').text(t("replay")).appendTo(replayRow);
        var replayMode = $("<select>").addClass("lis-dialect-replay-mode").css({ "margin-left": "4px", width: "auto" }).appendTo(replayRow);
        ["none", "new", "all"].forEach(function (m) { $("<option>").val(m).text(t("replayMode." + m)).appendTo(replayMode); });
        var replayView = $("<div>").addClass("lis-dialect-replay-report").css({ overflow: "auto", "font-size": "smaller" }).appendTo(root);

        var timer = null;
        var sequence = 0;
        var last = null;
        // A file's results are listed by sample (as they go to the LIS), or in the file's own order, line by line.
        var fileOrder = false;
        // Pointing at values in the capture (dialect-pointing.js, fetched once): a click writes the override that reads it.
        var pointing = null;
        function attachPointing() {
            pointing = window.LisBridgeDialectPointing.attach({ before: view, table: view, api: api, t: t,
                request: function () { return $.extend({ protocol: protocol, base: opts.base(), overrides: opts.overrides.val(), timeZone: opts.timeZone() }, capture()); },
                written: function (answer) { opts.overrides.val(JSON.stringify(answer.overrides, null, 2)); sequence++; last = answer.preview; render(answer.preview); },
                setting: protocol === "file" ? setOverride : null });
            if (last) { pointing.render(last); }
        }
        if (window.LisBridgeDialectPointing) { attachPointing(); }
        else { $.ajax({ url: "lis-bridge/editor/dialect-pointing.js", dataType: "script", cache: true }).done(attachPointing); }

        /** One top-level override chosen outside the JSON (a file's delimiter), written into it; overrides that are not JSON are left for the person to mend. */
        function setOverride(key, value) {
            var text = opts.overrides.val().trim();
            var overrides;
            try { overrides = text === "" ? {} : JSON.parse(text); } catch (e) { overrides = null; }
            if (!overrides || typeof overrides !== "object" || Array.isArray(overrides)) {
                issues.empty().append($("<li>").text(t("overridesNotJson")));
                return;
            }
            overrides[key] = value;
            opts.overrides.val(JSON.stringify(overrides, null, 2));
            refresh();
        }

        function schedule() {
            clearTimeout(timer);
            timer = setTimeout(refresh, DEBOUNCE_MS);
        }

        function refresh() {
            var asked = ++sequence;
            var body = $.extend({ protocol: protocol, base: opts.base(), overrides: opts.overrides.val(), timeZone: opts.timeZone() }, capture());
            $.ajax({ url: api + "/preview", method: "POST", contentType: "application/json", data: JSON.stringify(body), dataType: "json" })
                .done(function (answer) {
                    if (asked !== sequence) { return; } // an older answer arriving late
                    last = answer;
                    render(answer);
                })
                .fail(function (xhr) {
                    if (asked !== sequence) { return; }
                    var message = (xhr.responseJSON && xhr.responseJSON.message) || xhr.statusText;
                    issues.empty().append($("<li>").text(message));
                    // A file too large for the preview is let go, said where the file was named.
                    if (loaded && xhr.status === 413) { unload(); showLoaded(message); }
                });
        }

        // The capture and the tables' values are made pointable once the tables are drawn.
        function render(answer) {
            draw(answer);
            if (pointing) { pointing.render(answer); }
        }

        function draw(answer) {
            issues.empty();
            (answer.issues || []).forEach(function (i) {
                $("<li>").attr("data-path", i.path).append($("<code>").text(i.path || t("wholeProfile"))).append(document.createTextNode(" " + i.message)).appendTo(issues);
            });
            opts.overrides.css("border-color", (answer.issues || []).length > 0 ? "var(--red-ui-form-input-border-error-color, #c00)" : "");
            pasteInfo.empty();
            view.empty();
            if (answer.paste) {
                pasteInfo.text(t("form", { form: answer.paste.form, framing: answer.paste.framing }) + (answer.paste.notes.length ? " · " + answer.paste.notes.join(" · ") : ""));
                answer.paste.problems.forEach(function (p) {
                    var where = p.line !== undefined ? t("atLine", { line: p.line, column: p.column || 1 }) : p.frame !== undefined ? t("atFrame", { frame: p.frame }) : p.record !== undefined ? t("atRecord", { record: p.record }) : "";
                    $("<div>").addClass("lis-dialect-paste-problem").css("color", "var(--red-ui-text-color-error, #c00)").text(where + " " + p.message).appendTo(pasteInfo);
                });
            }
            var p = answer.preview;
            if (!p) { return; }
            var row = function (r) { return [r.message + ":" + r.record, r.sampleNumber, r.subCode ? { list: [r.testCode, r.subCode], separator: " / " } : r.testCode, r.value, r.units, { list: r.flags || [], separator: " " }, r.status, r.completedAt || r.completedAtRaw]; };
            var columns = [tp(protocol, "col.record"), t("col.sample"), t("col.test"), t("col.value"), t("col.units"), t("col.flags"), t("col.status"), t("col.completed")];
            view.append(heading(t("results", { count: p.results.length })));
            var results = p.results;
            if (protocol === "file" && results.length > 1) {
                var order = $("<select>").addClass("lis-dialect-results-order").css({ width: "auto", "margin-bottom": "4px" })
                    .append($("<option>").val("sample").text(t("order.bySample")), $("<option>").val("file").text(t("order.file")))
                    .val(fileOrder ? "file" : "sample")
                    .on("change", function () { fileOrder = order.val() === "file"; render(last); });
                view.append(order);
                if (fileOrder) { results = results.slice().sort(function (a, b) { return a.message - b.message || a.record - b.record; }); }
            }
            if (results.length) { view.append(table("results", columns, results.map(row))); }
            if (p.unassigned.length) {
                view.append(heading(t("unassigned", { count: p.unassigned.length })));
                view.append(table("unassigned", [tp(protocol, "col.record"), t("col.field"), t("col.test"), t("col.value"), t("col.reason")], p.unassigned.map(function (u) {
                    return [u.message + ":" + u.record, u.at ? u.at.label + " · " + u.at.record + " " + u.at.index : "", u.testCode, u.value, u.reason];
                })));
            }
            if (p.queries.length) {
                view.append(heading(t("queries", { count: p.queries.length })));
                view.append(table("queries", [tp(protocol, "col.record"), t("col.sample"), t("col.tests"), t("col.cancel")], p.queries.map(function (q) {
                    return [q.message + ":" + q.record, q.sampleNumber, q.tests.length ? q.tests : t("allTests"), q.cancel ? t("yes") : ""];
                })));
            }
            if (p.qc.length) {
                view.append(heading(t("qc", { count: p.qc.length })));
                view.append(table("qc", columns, p.qc.map(row)));
            }
            p.other.concat(p.problems.map(function (x) { return { message: x.message, reason: x.text }; })).forEach(function (o) {
                $("<div>").addClass("lis-dialect-other").css({ "font-size": "smaller" }).text(t("message", { n: o.message }) + ": ").append(isolated(o.reason)).appendTo(view);
            });
        }

        showBase.on("click", function () {
            if (baseView.is(":visible")) { baseView.hide(); return; }
            $.getJSON(api + "/" + encodeURIComponent(opts.base()), { protocol: protocol }, function (profile) {
                baseView.text(JSON.stringify(profile, null, 2)).show();
            });
        });
        // The overrides as stored: only what differs from the base, laid out.
        tidy.on("click", function () {
            if (last && last.overrides) {
                opts.overrides.val(Object.keys(last.overrides).length ? JSON.stringify(last.overrides, null, 2) : "");
                schedule();
            }
        });
        // What another site (or a new profile file) takes: the base and what differs.
        copy.on("click", function () {
            if (!last || !last.overrides) { return; }
            var text = JSON.stringify({ base: opts.base(), overrides: last.overrides }, null, 2);
            if (RED.clipboard && RED.clipboard.copyText) { RED.clipboard.copyText(text, copy, t("copied")); }
            else { baseView.text(text).show(); }
        });

        $("<option>").val("").text(t("pickLink")).appendTo(links);
        // Without a link type (file-message: folder-link keeps no trace and takes no replay) there is nothing to pick or replay through.
        if (opts.linkType) {
            RED.nodes.eachNode(function (n) {
                if (n.type === opts.linkType) { $("<option>").val(n.id).text(n.name || n.id).appendTo(links); }
            });
        } else {
            replayRow.hide();
            replayView.hide();
        }
        if (links.children().length === 1) { links.hide(); }
        links.on("change", function () {
            recent.empty().hide();
            if (!links.val()) { return; }
            $.getJSON("lis-bridge/links/" + encodeURIComponent(links.val()) + "/recent", function (answer) {
                $("<option>").val("").text(t("pickMessage", { n: answer.messages.length })).appendTo(recent);
                answer.messages.slice().reverse().forEach(function (m, i) {
                    $("<option>").val(String(answer.messages.length - 1 - i)).text(recentEntry(m)).appendTo(recent);
                });
                recent.data("messages", answer.messages).show();
            }).fail(function (xhr) {
                pasteInfo.text((xhr.responseJSON && xhr.responseJSON.message) || xhr.statusText);
            });
        });
        recent.on("change", function () {
            var m = (recent.data("messages") || [])[Number(recent.val())];
            if (m) { unload(); paste.val(m.text); schedule(); }
        });

        replayButton.on("click", function () {
            var link = links.val();
            if (!link) { replayView.text(tp(protocol, "replayNoLink")); return; }
            if (loaded) { replayView.text(t("replayLoaded")); return; }
            var mode = replayMode.val();
            if (mode !== "none" && !window.confirm(t("replayConfirm", { mode: t("replayMode." + mode) }))) { return; }
            replayView.empty();
            $.ajax({ url: "lis-bridge/links/" + encodeURIComponent(link) + "/replay", method: "POST", contentType: "application/json", data: JSON.stringify({ text: paste.val(), send: mode }), dataType: "json" })
                .done(function (report) { renderReplay(report); })
                .fail(function (xhr) {
                    var body = xhr.responseJSON || {};
                    replayView.text([body.message || xhr.statusText].concat(body.errors || []).join(" · "));
                });
        });

        /** Per sample what went (or would go) to the LIS, what it has already, what was unmapped; then what stayed aside and what failed. */
        function renderReplay(r) {
            var items = function (list) { return list.map(function (i) { return i.TestCode + (i.SubTestCode ? "/" + i.SubTestCode : "") + "=" + i.Result; }); };
            replayView.append(heading(r.settled ? t("replaySettled", { count: r.messages }) : t("replayUnsettled", { count: r.messages, id: r.id })));
            replayView.append(table("replay", [t("col.sample"), r.mode === "none" ? t("col.wouldSend") : t("col.sent"), t("col.atLis"), t("col.unmapped")], r.samples.map(function (s) {
                return [s.sampleNumber, items(r.mode === "none" ? s.wouldSend : s.sent), items(s.atLis.concat(s.held)), s.unmapped.map(function (u) { return u.instrumentCode + "=" + u.value; })];
            })));
            if (r.unassigned.length) { $("<div>").text(t("replayUnassigned", { count: r.unassigned.length }) + ": " + r.unassigned.map(function (u) { return u.reason; }).join("; ")).appendTo(replayView); }
            var qc = r.qc.reduce(function (n, q) { return n + q.results; }, 0);
            if (qc) { $("<div>").text(t("replayQc", { count: qc })).appendTo(replayView); }
            r.errors.forEach(function (e) { $("<div>").css("color", "var(--red-ui-text-color-error, #c00)").text(t("replayError", { node: e.node, error: e.error })).appendTo(replayView); });
        }

        opts.overrides.on("input change", schedule);
        paste.on("input change", schedule);
        refresh();
        return {
            refresh: schedule,
            close: function () { clearTimeout(timer); sequence++; }
        };
    }

    window.LisBridgeDialectEditor = { mount: mount, recentEntry: recentEntry };
})();
