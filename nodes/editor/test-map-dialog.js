/*
 * The lis-test-map dialog's lines above its table (nodes/lis-test-map.html loads this from GET
 * lis-bridge/editor/test-map-dialog.js): which test-mappers use the map, and "seen, not mapped": the codes and
 * coded texts this analyzer sent that the map does not hold (read from the results held for them, GET
 * lis-bridge/test-map/seen), each with one click to map it into the table below.
 *
 *   LisBridgeTestMapDialog.prepare(node, table)   table: what LisBridgeTestMapper.prepare returned
 *
 * Everything the analyzer or the flow says is drawn with textContent ($.text), never as HTML.
 */
(function () {
    "use strict";

    function t(key, vars) {
        return RED._("@lis-bridge/node-red-lis-bridge/lis-test-map:lis-test-map." + key, vars);
    }

    /** The test-mappers choosing this map, in the flow as the editor has it (deployed or not). */
    function users(node) {
        var out = [];
        RED.nodes.eachNode(function (n) {
            if (n.type === "test-mapper" && n.map === node.id) {
                out.push(n);
            }
        });
        return out;
    }

    function since(iso) {
        var d = new Date(iso);
        return isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
    }

    function prepare(node, table) {
        var mappers = users(node);
        $("#node-config-input-map-users").text(mappers.length === 0 ? t("users.none") : t("users.some", {
            count: mappers.length,
            n: mappers.length,
            names: mappers.map(function (n) { return n.name || n.id; }).join(", ")
        }));
        var box = $("#node-config-input-map-seen");
        if (mappers.length === 0) {
            return;
        }
        $.ajax({ url: "lis-bridge/test-map/seen", data: { nodes: mappers.map(function (n) { return n.id; }).join(",") }, dataType: "json" })
            .done(function (res) {
                var seen = res && Array.isArray(res.seen) ? res.seen : [];
                if (seen.length === 0) {
                    return;
                }
                box.closest(".form-row").show();
                seen.forEach(function (s) { draw(s); });
                $(window).trigger("resize");
            })
            .fail(function (xhr) {
                var body = xhr.responseJSON;
                box.closest(".form-row").show();
                box.text(t("seen.failed", { reason: body && body.message ? body.message : String(xhr.status) }));
            });

        function draw(s) {
            var item = $('<div class="lis-tmap-seen-item"></div>').attr({ "data-code": s.code, "data-kind": s.kind }).appendTo(box);
            $('<span class="lis-tmap-seen-code"></span>').text(s.code).appendTo(item);
            var counts = s.kind === "unvalued" ? t("seen.unvalued", { text: s.text, results: s.results, since: since(s.since) }) : t("seen.unmapped", { results: s.results, samples: s.samples, since: since(s.since) });
            $('<span class="lis-tmap-seen-counts"></span>').text(counts).appendTo(item);
            var choice;
            if (s.kind === "unvalued") {
                item.attr("data-text", s.text);
                choice = $('<input type="text" class="lis-tmap-seen-value">').attr("placeholder", t("placeholder.lisValue")).appendTo(item);
            } else {
                choice = $('<select class="lis-tmap-seen-test"></select>').appendTo(item);
                $("<option></option>").val("").text(t("placeholder.chooseTest")).appendTo(choice);
                table.tests().forEach(function (test) {
                    $("<option></option>").val(test.lisTestId).text(test.name + " (" + test.lisTestId + ")").appendTo(choice);
                });
            }
            $('<button type="button" class="red-ui-button red-ui-button-small lis-tmap-seen-map"></button>').text(t("label.map")).appendTo(item).on("click", function (evt) {
                evt.preventDefault();
                var value = String(choice.val() || "").trim();
                if (value === "") {
                    RED.notify(t(s.kind === "unvalued" ? "seen.noValue" : "seen.noTest"), "warning");
                    return;
                }
                var ok = s.kind === "unvalued" ? table.addValue(s.code, s.text, value) : table.mapCode(value, s.code);
                if (!ok) {
                    RED.notify(t("seen.noRow", { code: s.code }), "warning");
                    return;
                }
                item.empty().append($('<span class="lis-tmap-seen-done"></span>').text(s.code + (s.text ? " \"" + s.text + "\"" : "") + ": " + t("seen.mapped")));
            });
        }
    }

    window.LisBridgeTestMapDialog = { prepare: prepare };
})();
