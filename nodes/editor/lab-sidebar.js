/*
 * The "Lab" sidebar (a plugin: package.json node-red.plugins; nodes/lab-sidebar.html loads this from GET
 * lis-bridge/editor/lab-sidebar.js): every analyzer link's health, the results waiting for a person (by code),
 * the orders sent without some tests, the held result batches and the stuck messages, with their buttons. It reads
 * and acts through the lis-bridge admin routes (lis.read to see, lis.write to act) and refreshes when the runtime
 * signals a change over comms.
 *
 *   LisBridgeLab.mount()   adds the tab to the editor's sidebar (once)
 *
 * Everything the analyzer sent is drawn with textContent ($.text), never as HTML.
 */
(function () {
    "use strict";

    var NS = "@lis-bridge/node-red-lis-bridge/lab-sidebar:lab.";
    var TOPIC = "lis-bridge/lab";
    var SHOW_ACTION = "lis-bridge:show-lab-tab";
    function _(key, vars) { return RED._(NS + key, vars); }

    function ago(iso) {
        if (!iso) { return _("never"); }
        var s = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
        if (s < 60) { return _("ago.seconds", { n: s }); }
        if (s < 3600) { return _("ago.minutes", { n: Math.floor(s / 60) }); }
        if (s < 86400) { return _("ago.hours", { n: Math.floor(s / 3600) }); }
        return _("ago.days", { n: Math.floor(s / 86400) });
    }
    function clock(iso) { return iso ? new Date(iso).toLocaleTimeString() : ""; }
    function dateTime(iso) { return iso ? new Date(iso).toLocaleString() : ""; }
    // What an analyzer sent (sample numbers, its name, its bytes) is drawn isolated: a right-to-left override in
    // one sample number must not reverse how the next one, or the rest of the row, is drawn.
    function isolated(text) { return $('<bdi class="lis-lab-text" style="unicode-bidi: isolate;"></bdi>').text(text); }
    function isolatedList(into, values) {
        values.forEach(function (v, i) { if (i > 0) { into.append(plain(", ")); } into.append(isolated(v)); });
        return into;
    }
    function plain(text) { return document.createTextNode(text); }
    /** For a native dialog, which draws plain text: each value between FSI and PDI. */
    function isolatedPlain(values) { return values.map(function (v) { return "\u2068" + v + "\u2069"; }).join(", "); }

    // A trace unit takes the whole width of its box, whatever box it lands in (a shrink-to-fit or flex one
    // would otherwise size it by its narrowest content: with break-all, one character, so a long frame stood
    // one character per line), and wraps after a field separator or a space, a token longer than the line
    // anywhere. Records after the first are indented by the text itself ("\n    ").
    var STYLE = ".lis-lab-trace { width: 100%; min-width: 0; box-sizing: border-box; }" +
        " .lis-lab-trace-unit { display: block; width: 100%; min-width: 0; box-sizing: border-box; font-family: monospace; font-size: 11px;" +
        " white-space: pre-wrap; word-break: normal; overflow-wrap: anywhere; }";

    var STATE_COLOURS = { connected: "#3a3", listening: "#c80", disconnected: "#c33", "port-missing": "#c33", "port-shared": "#c33", unknown: "#888" };
    var BOX = "border: 1px solid var(--red-ui-secondary-border-color, #ccc); border-radius: 4px; padding: 6px; margin-bottom: 6px;";

    function build() {
        var content = $('<div class="lis-lab" style="padding: 8px; overflow-y: auto; height: 100%; box-sizing: border-box;"></div>');
        $("<style></style>").text(STYLE).appendTo(content);
        var toolbar = $('<div style="margin-bottom: 8px;"></div>').appendTo(content);
        var refreshButton = $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-refresh"><i class="fa fa-refresh"></i> </button>').appendTo(toolbar);
        refreshButton.append($("<span></span>").text(_("refresh")));
        var problem = $('<div class="lis-lab-problem" style="color: var(--red-ui-text-color-error, #d00); display: none; margin-bottom: 8px;"></div>').appendTo(content);
        // The one line that speaks for the whole journal: said only as the runtime counts it (GET lis-bridge/held).
        var verdict = $('<div class="lis-lab-verdict" style="margin-bottom: 8px; font-weight: bold;"></div>').appendTo(content);

        function section(name) {
            var head = $('<h3 style="margin: 10px 0 6px 0; font-size: 1.1em;"></h3>').addClass("lis-lab-heading-" + name).text(_(name + ".heading")).appendTo(content);
            var summary = $('<div style="margin-bottom: 6px; opacity: 0.85;"></div>').addClass("lis-lab-" + name + "-summary").appendTo(content);
            var list = $("<div></div>").addClass("lis-lab-" + name).appendTo(content);
            return { head: head, summary: summary, list: list };
        }
        // Acting on what is held needs the package's own permission, not the right to edit flows: a login without it
        // sees everything, with the buttons off and this line saying why.
        var mayAct = !RED.user || typeof RED.user.hasPermission !== "function" || RED.user.hasPermission("lis.write");
        if (!mayAct) {
            $('<div class="lis-lab-read-only" style="margin-bottom: 8px; opacity: 0.85;"></div>').text(_("readOnly")).appendTo(content);
        }
        var links = section("links");
        var qc = section("qc");
        var qcSection = null;
        var holds = section("holds");
        var orders = section("orders");
        var held = section("held");
        var stuck = section("stuck");

        var lastLinks = [];
        var openTraces = {};

        function showProblem(xhr) {
            var text = (xhr && xhr.responseJSON && xhr.responseJSON.message) || (xhr && xhr.statusText) || _("error");
            problem.text(text).show();
        }

        // --- Links ---
        function alarmText(a, protocol) {
            if (a.code === "LINK_QUIET") { return _(protocol === "file" ? "file.quiet" : "alarm.quiet", { since: clock(a.since) }); }
            if (a.code === "LINK_DOWN") { return _("alarm.down", { state: _("state." + a.transport), since: clock(a.since) }); }
            return _("alarm.held", { n: a.count, since: dateTime(a.since) });
        }
        function stateBadge(state, since, protocol) {
            var badge = $('<span class="lis-lab-state" style="font-weight: bold;"></span>').attr("data-state", state).css("color", STATE_COLOURS[state] || "#888");
            // A folder is watched or cannot be read; it has no port or connection.
            var words = protocol === "file" && (state === "connected" || state === "disconnected") ? _("file.state." + state) : _("state." + state);
            badge.text(words + (since ? " " + _("since", { time: clock(since) }) : ""));
            return badge;
        }
        /** While the line is down, where it goes and what sets that: the first things to check. */
        function lineCheck(link) {
            var line = link.line;
            var down = link.transport === "disconnected" || link.transport === "port-missing" || (link.transport === "listening" && line && line.kind === "tcp-server");
            if (!line || !down) { return ""; }
            var where = line.kind === "tcp-client" ? _("check.tcpClient", { host: line.host || "?", port: line.port || "?" })
                : line.kind === "tcp-server" ? _("check.tcpServer", { port: line.port || "?" })
                    : _("check.serial", { device: line.device || "?" });
            var set = line.variables.length ? _("check.variables", { variables: line.variables.join(", ") }) : _(line.kind === "serial" ? "check.serialNode" : "check.tcpNode");
            return where + " " + set;
        }
        function counts(today) {
            return _("today", { messages: today.received, queries: today.queries, results: today.results, sent: today.sent });
        }
        /** Where each of today's results ended first (the journal's count): once all have ended, these add up to "results". */
        function endings(today) {
            return _("endings", { delivered: today.delivered || 0, held: today.heldForPerson || 0, discarded: today.discarded || 0, notForLis: today.notForLis || 0 });
        }
        /** What people did today with held results, and how many of the link's still wait; shown once there are any. */
        function resolutions(link) {
            var t = link.today;
            if (!(t.heldForPerson || t.released || t.dismissed || t.evaluated || link.waiting)) { return undefined; }
            return _(t.evaluated ? "resolvedQc" : "resolved", { released: t.released || 0, dismissed: t.dismissed || 0, evaluated: t.evaluated || 0, waiting: link.waiting || 0 });
        }
        function endingRows(link, item) {
            $("<div></div>").addClass("lis-lab-endings").text(endings(link.today)).appendTo(item);
            var resolved = resolutions(link);
            if (resolved) { $("<div></div>").addClass("lis-lab-resolved").text(resolved).appendTo(item); }
        }
        function traceView(node, box) {
            box.empty().append($("<div></div>").text(_("trace.loading")));
            $.getJSON("lis-bridge/links/" + encodeURIComponent(node) + "/trace?lines=40").done(function (data) {
                box.empty();
                if (data.units.length === 0) { box.append($("<div></div>").text(_("trace.empty"))); return; }
                if (data.redact) { box.append($('<div style="opacity: 0.8;"></div>').text(_("trace.redacted"))); }
                data.units.forEach(function (u) {
                    var line = $('<div class="lis-lab-trace-unit"></div>');
                    var who = u.direction === "in" ? _("trace.in") : u.direction === "out" ? _("trace.out") : _("trace.note");
                    // A unit with text (an ASTM frame or records, an HL7 message's segments, bytes outside them, a note) shows
                    // it, one record or segment a line; a control byte (ENQ, ACK ...) shows its name.
                    var what = u.kind === "frame" || u.kind === "records" || u.kind === "message" || u.kind === "bytes" || u.kind === "note" ? u.records.join("\n    ") : u.kind;
                    line.text(clock(u.at) + " " + who + " ");
                    if (u.session) { line.append(plain("["), isolated(u.session), plain("] ")); }
                    line.append(isolated(what));
                    box.append(line);
                });
            }).fail(function (xhr) {
                box.empty().append($('<div style="opacity: 0.8;"></div>').text((xhr.responseJSON && xhr.responseJSON.message) || xhr.statusText));
            });
        }
        // The name the analyzer gives itself (ASTM H-5, HL7 MSH-3 or MSH-4). Some never give one (the Mindray CL
        // in HL7 mode leaves MSH-3 to MSH-6 empty): once a message came, "not named yet" would wait forever.
        function analyzerName(row, protocol) {
            if (row.analyzer) { return row.analyzer; }
            if (!row.lastReceived) { return _("unnamed"); }
            return _(protocol === "hl7" ? "nameless.hl7" : protocol === "file" ? "nameless.file" : "nameless.astm");
        }
        function linkRow(link) {
            var item = $('<div class="lis-lab-link" style="cursor: pointer; ' + BOX + '"></div>').attr("data-node", link.node);
            var title = $('<div style="font-weight: bold;"></div>').addClass("lis-lab-link-name").text(link.name).appendTo(item);
            // Who the analyzer says it is (once it sent a message), and the dialect its flow reads it in.
            $('<span style="font-weight: normal; opacity: 0.85;"></span>').addClass("lis-lab-analyzer")
                .append(plain(" · "), link.analyzer ? isolated(link.analyzer) : plain(analyzerName(link, link.protocol)),
                    plain((link.dialectLabel ? " · " : "") + (link.dialectLabel || "") + " (" + String(link.protocol || "").toUpperCase() + ")")).appendTo(title);
            $("<div></div>").append(stateBadge(link.transport, link.transportSince, link.protocol)).appendTo(item);
            var check = lineCheck(link);
            if (check) { $('<div style="opacity: 0.9;"></div>').addClass("lis-lab-check").text(check).appendTo(item); }
            if (link.files) {
                // A folder link (folder-link): its files, not a line's messages and NAKs.
                var files = link.files;
                $("<div></div>").addClass("lis-lab-activity").append(plain(_("file.lastFile", { ago: ago(link.lastReceived) })),
                    files.lastFile ? $("<span></span>").append(plain(" ("), isolated(files.lastFile), plain(")")) : plain("")).appendTo(item);
                $("<div></div>").addClass("lis-lab-counts").text(_("file.today", { files: link.today.received, results: link.today.results })).appendTo(item);
                $("<div></div>").addClass("lis-lab-files").text(_("file.waiting", { waiting: files.waiting, held: files.held, duplicates: files.duplicates, errorFiles: files.errorFiles, untaken: files.untaken || 0 })).appendTo(item);
                endingRows(link, item);
                $("<div></div>").addClass("lis-lab-problems").text(_("file.problems", { errors: link.today.errors, held: link.held, stuck: link.stuck, waiting: link.waiting || 0 })).appendTo(item);
            } else {
                $("<div></div>").addClass("lis-lab-activity").text(_("lastReceived", { ago: ago(link.lastReceived) }) + " · " + _("lastSent", { ago: ago(link.lastSent) })).appendTo(item);
                $("<div></div>").addClass("lis-lab-counts").text(counts(link.today)).appendTo(item);
                endingRows(link, item);
                $("<div></div>").addClass("lis-lab-problems").text(_("problems", { naks: link.today.naksSent + link.today.naksReceived, errors: link.today.errors, held: link.held, stuck: link.stuck, waiting: link.waiting || 0 })).appendTo(item);
            }
            link.alarms.forEach(function (a) {
                $('<div class="lis-lab-alarm" style="margin-top: 3px; padding: 2px 6px; border-radius: 3px; color: #fff; display: inline-block; margin-right: 4px;"></div>')
                    .attr("data-code", a.code).css("background", a.code === "LINK_QUIET" ? "#c80" : "#c33").text(alarmText(a, link.protocol)).appendTo(item);
            });
            if (link.connections.length > 1) {
                var sessions = $('<div style="margin-top: 4px; padding-left: 8px; border-left: 2px solid var(--red-ui-secondary-border-color, #ccc);"></div>').appendTo(item);
                link.connections.forEach(function (c) {
                    var row = $('<div class="lis-lab-connection"></div>').appendTo(sessions);
                    row.append($("<span></span>").append(c.analyzer ? isolated(c.analyzer) : plain(analyzerName(c, link.protocol)), plain((c.peer ? " (" + c.peer + ")" : "") + " ")));
                    row.append(stateBadge(c.transport, c.transportSince, link.protocol));
                    row.append($("<span></span>").text(" · " + _("lastReceived", { ago: ago(c.lastReceived) }) + " · " + counts(c.today)));
                });
            }
            // An open trace keeps its box (and what it shows) across re-renders.
            if (openTraces[link.node]) { item.append(openTraces[link.node]); }
            item.on("click", function () {
                var open = openTraces[link.node];
                if (open) {
                    open.remove();
                    delete openTraces[link.node];
                    return;
                }
                var box = $('<div class="lis-lab-trace" style="margin-top: 6px; cursor: auto;"></div>').on("click", function (e) { e.stopPropagation(); });
                openTraces[link.node] = box;
                item.append(box);
                traceView(link.node, box);
            });
            return item;
        }
        function showLinks() {
            // detach, not empty: an open trace box keeps its handlers for the new row.
            Object.keys(openTraces).forEach(function (node) { openTraces[node].detach(); });
            links.list.empty();
            links.summary.text(lastLinks.length === 0 ? _("links.none") : _("links.hint"));
            lastLinks.forEach(function (l) { links.list.append(linkRow(l)); });
        }
        function refreshLinks() {
            return $.getJSON("lis-bridge/links").done(function (data) {
                lastLinks = data.links;
                showLinks();
                Object.keys(openTraces).forEach(function (node) { traceView(node, openTraces[node]); });
            }).fail(showProblem);
        }

        // --- Held and stuck ---
        function heldRow(batch) {
            var item = $('<div class="lis-lab-batch" style="' + BOX + '"></div>').attr("data-key", batch.key);
            isolatedList($('<div style="font-weight: bold;"></div>').addClass("lis-lab-samples"), batch.samples).appendTo(item);
            $("<div></div>").addClass("lis-lab-batch-state").text(_("held.state." + batch.state) + " · " + _("held.results", { n: batch.results }) + " · " + dateTime(batch.firstSent)).appendTo(item);
            if (batch.error) { $('<div style="opacity: 0.8;"></div>').addClass("lis-lab-batch-error").append(isolated(batch.error.message)).appendTo(item); }
            if (!batch.deployed) { $('<div style="opacity: 0.8;"></div>').text(_("held.notDeployed")).appendTo(item); }
            var buttons = $('<div style="margin-top: 4px;"></div>').appendTo(item);
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-resend"></button>').text(_("held.resend"))
                .prop("disabled", !mayAct || !batch.deployed).on("click", function () { actOnBatch(batch, "resend"); }).appendTo(buttons);
            $("<span> </span>").appendTo(buttons);
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-discard"></button>').text(_("held.discard")).prop("disabled", !mayAct)
                .on("click", function () { actOnBatch(batch, "discard"); }).appendTo(buttons);
            return item;
        }
        function actOnBatch(batch, action) {
            var question = action === "discard" ? _("held.confirmDiscard", { samples: isolatedPlain(batch.samples) })
                : batch.state === "uncertain" ? _("held.confirmResendUncertain", { samples: isolatedPlain(batch.samples) }) : null;
            if (question && !window.confirm(question)) { return; }
            post("lis-bridge/held/" + encodeURIComponent(batch.key) + "/" + action);
        }
        function linkName(node) {
            for (var i = 0; i < lastLinks.length; i++) { if (lastLinks[i].node === node) { return lastLinks[i].name; } }
            return node;
        }
        function stuckRow(m) {
            var item = $('<div class="lis-lab-stuck-message" style="' + BOX + '"></div>').attr("data-id", m.id);
            var samples = $('<div style="font-weight: bold;"></div>').addClass("lis-lab-samples").appendTo(item);
            if (m.samples.length) { isolatedList(samples, m.samples); } else { samples.text(_("stuck.samplesUnknown")); }
            if (m.others && m.others.length) {
                // The message's other samples went on to the LIS: said so, or an operator dismissing it would enter them again by hand.
                var others = $('<div class="lis-lab-others" style="opacity: 0.8;"></div>').append(plain(_("stuck.others"))).appendTo(item);
                isolatedList(others, m.others);
            }
            $("<div></div>").text(_("stuck.received", { time: dateTime(m.at), link: linkName(m.link) })).appendTo(item);
            $('<div style="opacity: 0.8;"></div>').addClass("lis-lab-reason").append(isolated(m.reason || _("stuck.noReason"))).appendTo(item);
            if (m.note) { $('<div style="opacity: 0.8;"></div>').append(isolated(m.note)).appendTo(item); }
            var buttons = $('<div style="margin-top: 4px;"></div>').appendTo(item);
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-replay"></button>').text(_("stuck.replay")).prop("disabled", !mayAct)
                .on("click", function () { post("lis-bridge/stuck/" + encodeURIComponent(m.id) + "/replay"); }).appendTo(buttons);
            $("<span> </span>").appendTo(buttons);
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-dismiss"></button>').text(_("stuck.dismiss")).prop("disabled", !mayAct)
                .on("click", function () {
                    if (!window.confirm(_("stuck.confirmDismiss", { samples: m.samples.join(", ") || _("stuck.samplesUnknown") }))) { return; }
                    post("lis-bridge/stuck/" + encodeURIComponent(m.id) + "/dismiss");
                }).appendTo(buttons);
            return item;
        }
        /** Holds of one kind and code, across messages: one row, one decision ("UREAL: 12 results, 9 samples"). */
        function holdGroups(list) {
            var groups = [];
            var byKey = {};
            list.forEach(function (h) {
                // One analyzer's code: the same code held by two analyzers' nodes is two decisions. A correction is one
                // file's new values against the old ones: each file's is decided apart, never sent or dismissed with another's.
                var key = h.kind + "\u0000" + h.code + "\u0000" + h.node + (h.kind === "correction" ? "\u0000" + h.id : "");
                var g = byKey[key];
                if (!g) {
                    g = byKey[key] = { kind: h.kind, code: h.code, link: h.link, reason: h.reason, since: h.since, ids: [], samples: [], results: 0, deployed: true, sending: false, sendable: h.sendable !== false, first: h, corrections: [] };
                    groups.push(g);
                }
                g.ids.push(h.id);
                g.results += h.results;
                g.deployed = g.deployed && h.deployed;
                g.sending = g.sending || h.state === "sending";
                h.samples.forEach(function (sample) { if (g.samples.indexOf(sample) < 0) { g.samples.push(sample); } });
                g.corrections = g.corrections.concat(h.corrections || []);
            });
            return groups;
        }
        function holdRow(g) {
            var item = $('<div class="lis-lab-hold" style="' + BOX + '"></div>').attr("data-kind", g.kind).attr("data-code", g.code);
            var title = $('<div style="font-weight: bold;"></div>').addClass("lis-lab-hold-title").appendTo(item);
            title.append(isolated(g.code || _("holds.noCode"))).append(plain(_("holds.counts", { results: g.results, samples: g.samples.length, since: dateTime(g.since) })));
            isolatedList($("<div></div>").addClass("lis-lab-samples"), g.samples).appendTo(item);
            if (g.link) { $("<div></div>").addClass("lis-lab-hold-link").text(_("holds.from", { link: linkName(g.link) })).appendTo(item); }
            // A correction: what was delivered before and what the file brings now, one line a result (old -> new).
            if (g.corrections.length > 0) {
                g.corrections.slice(0, 20).forEach(function (c) {
                    $("<div></div>").addClass("lis-lab-correction").append(isolated(c.sample)).append(plain(": ")).append(isolated(c.old))
                        .append(plain(" " + _("holds.correctionFrom", { file: isolatedPlain([c.oldFile || ""]), at: dateTime(c.oldAt) }) + " \u2192 ")).append($("<b></b>").append(isolated(c.new)))
                        .append(plain(" " + _("holds.correctionIn", { file: isolatedPlain([c.file || ""]) }))).appendTo(item);
                });
            } else {
                $('<div style="opacity: 0.8;"></div>').addClass("lis-lab-reason").append(isolated(g.reason)).appendTo(item);
            }
            $('<div style="opacity: 0.8;"></div>').text(_("holds.what." + g.kind)).appendTo(item);
            if (g.sendable && !g.deployed) { $('<div style="opacity: 0.8;"></div>').text(_(g.kind === "correction" ? "holds.notDeployedCorrection" : g.kind === "qc" || g.kind === "control" ? "holds.notDeployedQc" : "holds.notDeployed")).appendTo(item); }
            var buttons = $('<div style="margin-top: 4px;"></div>').appendTo(item);
            if (g.sendable) {
                $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-hold-send"></button>').text(g.sending ? _("holds.sending") : _(g.kind === "qc" ? "holds.release" : g.kind === "control" ? "holds.evaluate" : "holds.send"))
                    .prop("disabled", !mayAct || !g.deployed || g.sending).on("click", function () { postJson("lis-bridge/holds/send", { ids: g.ids }); }).appendTo(buttons);
                $("<span> </span>").appendTo(buttons);
            }
            // One hold at a time: each is one message's results, and the person names its sample from its record.
            if (g.first.placeable && g.deployed) {
                $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-hold-place"></button>').text(_("holds.place")).prop("disabled", !mayAct)
                    .on("click", function () {
                        var sample = window.prompt(_("holds.placeWhich", { records: (g.first.records || []).join("\n") }), "");
                        if (sample === null || sample.trim() === "") { return; }
                        postJson("lis-bridge/holds/place", { id: g.first.id, sampleNumber: sample.trim() });
                    }).appendTo(buttons);
                $("<span> </span>").appendTo(buttons);
            }
            $('<button type="button" class="red-ui-button red-ui-button-small lis-lab-hold-dismiss"></button>').text(_(g.kind === "qc" ? "holds.reject" : "holds.dismiss")).prop("disabled", !mayAct)
                .on("click", function () {
                    var note = window.prompt(_("holds.dismissWhy", { code: g.code, samples: isolatedPlain(g.samples) }), "");
                    if (note === null) { return; }
                    if (note.trim() === "") { problem.text(_("holds.dismissNeedsWhy")).show(); return; }
                    postJson("lis-bridge/holds/dismiss", { ids: g.ids, note: note });
                }).appendTo(buttons);
            return item;
        }
        function waiting(list) { return (list || []).reduce(function (n, h) { return n + h.results; }, 0); }
        function refreshQueues() {
            return $.getJSON("lis-bridge/held").done(function (data) {
                var s = data.summary;
                if (s) {
                    var open = ["waiting", "heldBatches", "stuck", "onTheirWay", "notUnderstood"].filter(function (k) { return s[k] > 0; })
                        .map(function (k) { return _("verdict." + k, { n: s[k] }); });
                    verdict.attr("data-everything", s.everythingReached ? "yes" : "no").css("color", s.everythingReached ? "" : "var(--red-ui-text-color-warning, #b60)")
                        .text(s.everythingReached ? _("verdict.everything") : _("verdict.notYet", { parts: open.join(" · ") }));
                }
                var groups = holdGroups(data.holds || []);
                holds.list.empty();
                holds.summary.text(groups.length === 0 ? _("holds.none") : _("holds.count", { count: waiting(data.holds), n: waiting(data.holds) }));
                groups.forEach(function (g) { holds.list.append(holdRow(g)); });
                var gaps = data.ordersMissingTests || [];
                orders.list.empty();
                orders.summary.text(gaps.length === 0 ? _("orders.none") : _("orders.count", { count: gaps.length, n: gaps.length }));
                gaps.forEach(function (g) {
                    var item = $('<div class="lis-lab-order-gap" style="' + BOX + '"></div>');
                    isolatedList($('<div style="font-weight: bold;"></div>').addClass("lis-lab-samples"), [g.sample]).appendTo(item);
                    isolatedList($("<div></div>").addClass("lis-lab-order-tests").append(plain(_("orders.tests"))), g.tests).appendTo(item);
                    $('<div style="opacity: 0.8;"></div>').text(dateTime(g.at)).appendTo(item);
                    orders.list.append(item);
                });
                held.list.empty();
                held.summary.text(data.batches.length === 0 ? _("held.none") : _("held.count", { n: data.batches.length }));
                data.batches.forEach(function (b) { held.list.append(heldRow(b)); });
                stuck.list.empty();
                stuck.summary.text(data.stuck.length === 0 ? _("stuck.none") : _("stuck.count", { n: data.stuck.length }));
                data.stuck.forEach(function (m) { stuck.list.append(stuckRow(m)); });
            }).fail(showProblem);
        }
        function post(url) {
            problem.hide();
            $.ajax({ url: url, method: "POST" }).fail(showProblem).always(refresh);
        }
        function postJson(url, body) {
            problem.hide();
            $.ajax({ url: url, method: "POST", contentType: "application/json", data: JSON.stringify(body) }).done(function (answer) {
                // Some of them could not be acted on (still not mapped, say): said, the others went.
                if (answer && answer.failed && answer.failed.length) { problem.text(answer.failed.map(function (f) { return f.error; }).join("; ")).show(); }
            }).fail(showProblem).always(refresh);
        }

        function refreshQc() {
            return qcSection ? qcSection.refresh() : $.Deferred().resolve().promise();
        }
        function refresh() {
            refreshLinks().always(refreshQueues).always(refreshQc);
        }
        // The QC section and its chart are scripts of their own, loaded with the sidebar.
        $.when(loadScript("lab-qc.js"), loadScript("qc-chart.js")).done(function () {
            qc.summary.remove();
            qcSection = window.LisBridgeLabQc.mount(qc.list, {
                _: _, BOX: BOX, mayAct: mayAct, isolated: isolated, isolatedList: isolatedList, plain: plain,
                showProblem: showProblem, hideProblem: function () { problem.hide(); }, say: function (text) { problem.text(text).show(); }, refreshAll: refresh
            });
            if (content.is(":visible")) { refreshQc(); }
        });
        refreshButton.on("click", function () { problem.hide(); refresh(); });

        // Live: the runtime says which part changed; only a shown sidebar fetches it.
        RED.comms.subscribe(TOPIC, function (topic, signal) {
            if (!content.is(":visible")) { return; }
            var parts = (signal && signal.parts) || ["links", "queues"];
            if (parts.indexOf("links") >= 0) { refreshLinks(); }
            if (parts.indexOf("queues") >= 0) { refreshQueues(); refreshQc(); }
            if (parts.indexOf("qc") >= 0 && parts.indexOf("queues") < 0) { refreshQc(); }
        });
        // "5 min ago" grows without any change to signal.
        setInterval(function () { if (content.is(":visible") && lastLinks.length > 0) { showLinks(); } }, 15000);

        // Findable without hunting: an action with a shortcut (ctrl-g l, beside Node-RED's ctrl-g i / d / c),
        // listed in the action list and named in the icon's tooltip; addTab puts the tab in the View menu too.
        RED.actions.add(SHOW_ACTION, function () { RED.sidebar.show("lis-lab"); }, { label: NS + "show" });
        RED.keyboard.add("*", "ctrl-g l", SHOW_ACTION);
        RED.sidebar.addTab({
            id: "lis-lab",
            label: _("label"),
            name: _("name"),
            iconClass: "fa fa-flask",
            content: content,
            enableOnEdit: true,
            pinned: true,
            action: SHOW_ACTION,
            onchange: refresh
        });
        placeTab();
    }

    /**
     * The icons of a narrow sidebar's tab bar show the tabs in order, the last ones going into the dropdown:
     * Node-RED orders its tabs by the operator's saved order (editor.sidebar.order, by default Info, Help,
     * Debug), then the others as they came, a plugin's last (so the Lab icon was the first hidden; `pinned`
     * only places a new icon, the order undoes it). Without an order naming it, the Lab tab goes right after
     * the ordered ones. Node-RED's sidebar has no API to order tabs: this moves its tab and icon as the
     * operator's drag would, and Node-RED keeps that place when later tabs come (unordered tabs keep their
     * places); an operator who drags it elsewhere saves an order that names it, which is then left alone.
     * Node-RED 5 has no such tab bar (no #red-ui-sidebar-tabs, so this finds no tab and does nothing): it draws
     * every tab's icon in one bar under the canvas, shown all together or all behind its overflow button when
     * the window is too narrow, so no place in it is better than another.
     */
    function placeTab() {
        var order = RED.settings.get("editor.sidebar.order", ["info", "help", "version-control", "debug"]) || [];
        if (order.indexOf("lis-lab") >= 0) { return; }
        var tabs = $("#red-ui-sidebar-tabs").children("li");
        var buttons = $("#red-ui-sidebar .red-ui-tab-link-buttons").children("a");
        var byId = function (list, id) { return list.filter(function () { return $(this).data("tabId") === id; }); };
        var ordered = order.filter(function (id) { return byId(tabs, id).length > 0; });
        var last = ordered[ordered.length - 1];
        var tab = byId(tabs, "lis-lab");
        var button = byId(buttons, "lis-lab");
        if (last === undefined || tab.length === 0 || button.length === 0 || byId(buttons, last).length === 0) { return; }
        tab.insertAfter(byId(tabs, last));
        // Hidden when it came last; the tab bar's next fitting (addTab's, 10 ms on) hides the last icons instead.
        button.insertAfter(byId(buttons, last)).show();
    }

    function loadScript(file) {
        return $.ajax({ url: "lis-bridge/editor/" + file, dataType: "script", cache: true });
    }

    var mounted = false;
    window.LisBridgeLab = {
        mount: function () {
            if (mounted) { return; }
            mounted = true;
            build();
        }
    };
})();
