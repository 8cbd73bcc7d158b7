/*
 * The test-mapper dialog's test-map line (nodes/test-mapper.html loads this from GET
 * lis-bridge/editor/test-map-merge.js): which test map the node uses and how many test-mappers share it, and, for
 * a node that keeps its own table (a flow saved before test maps), the offer to merge the tables of the tab's
 * test-mappers into one new test map. The merge itself is lib/mapping/merge.ts behind POST lis-bridge/mapping/merge:
 * identical rows merge keeping their ways, and where the tables of one way differ each version is shown here, with
 * the test-mappers holding it, until the integrator chooses.
 *
 *   LisBridgeTestMapMerge.prepare(node, { own, rows(), merged(mapId), resize() }) -> { cancel() }
 *        cancel(): the dialog's Cancel takes a merge made in it back (the new map, the other test-mappers' moves)
 *
 * Everything from a flow (names, codes) is drawn with textContent ($.text), never as HTML.
 */
(function () {
    "use strict";

    function t(key, vars) {
        return RED._("@lis-bridge/node-red-lis-bridge/test-mapper:test-mapper." + key, vars);
    }

    function text(v) {
        return v === undefined || v === null ? "" : String(v);
    }

    function nameOf(n) {
        return n.name || n.id;
    }

    /** The test-mappers using the map `id`, this one counted by what its dialog has chosen. */
    function usersOf(id, node) {
        var n = 0;
        RED.nodes.eachNode(function (other) {
            if (other.type === "test-mapper" && other.id !== node.id && other.map === id) {
                n++;
            }
        });
        return n + 1;
    }

    function prepare(node, options) {
        var note = $("#node-input-map-note");
        var select = $("#node-input-map");
        var merged = null;
        var plan = null;
        var lastPlan = null;
        var pushed = null;

        function show() {
            note.empty();
            var id = select.val();
            var map = id && id !== "_ADD_" ? RED.nodes.node(id) : null;
            $("#dialog-form .lis-tm-own, #dialog-form .lis-tm-table-row").toggleClass("lis-tm-hidden", !(options.own && !map && !merged));
            if (merged) {
                note.text(t("map.merged", merged));
            } else if (map) {
                var n = usersOf(map.id, node);
                note.text(t(n > 1 ? "map.uses" : "map.usesAlone", { map: map.name || map.instrument || map.id, n: n }));
                if (options.own) {
                    $("<div></div>").text(t("map.ownWithMap")).appendTo(note);
                }
            } else if (options.own) {
                note.append($("<span></span>").text(t("map.own") + " "));
                $('<button type="button" class="red-ui-button red-ui-button-small" id="node-input-map-merge"></button>')
                    .text(t("label.merge"))
                    .appendTo(note)
                    .on("click", function (evt) {
                        evt.preventDefault();
                        planMerge();
                    });
            } else {
                note.text(t("map.none"));
            }
            options.resize();
        }

        /** The tables to merge: this node's (as its dialog has it) and every other test-mapper of its tab with its own. */
        function tables() {
            var out = [{ node: node.id, name: nameOf(node), direction: $("#node-input-direction").val() || "auto", rows: options.rows() }];
            RED.nodes.eachNode(function (n) {
                if (n.type === "test-mapper" && n.id !== node.id && n.z === node.z && !n.map && Array.isArray(n.mapping) && n.mapping.length > 0) {
                    out.push({ node: n.id, name: nameOf(n), direction: n.direction || "auto", rows: n.mapping });
                }
            });
            return out;
        }

        function post(body) {
            return $.ajax({ url: "lis-bridge/mapping/merge", type: "POST", contentType: "application/json", data: JSON.stringify(body), dataType: "json" });
        }

        /** The refusal above the plan, whose choices stay as they were, to be completed. */
        function failed(xhr) {
            var body = xhr.responseJSON;
            var reason = body && typeof body.message === "string" ? body.message : t("errors.httpStatus", { status: xhr.status, text: xhr.statusText || "" });
            var error = $('<div class="lis-tm-merge-error"></div>').css("color", "var(--red-ui-text-color-error)").text(t("map.mergeFailed", { reason: reason }));
            if (plan && lastPlan) {
                var picked = {};
                note.find("input[type=radio]:checked").each(function () { picked[$(this).attr("name")] = $(this).val(); });
                drawPlan(lastPlan);
                Object.keys(picked).forEach(function (name) { note.find('input[name="' + name + '"][value="' + picked[name] + '"]').prop("checked", true); });
                note.prepend(error);
            } else {
                note.empty().append(error);
            }
            options.resize();
        }

        function planMerge() {
            var all = tables();
            post({ tables: all }).done(function (res) {
                plan = { tables: all, differences: res.differences || [] };
                lastPlan = res;
                drawPlan(res);
            }).fail(failed);
        }

        function drawPlan(res) {
            var names = {};
            plan.tables.forEach(function (x) { names[x.node] = x.name; });
            note.empty();
            $("<div></div>").text(t("map.mergePlan", { tables: plan.tables.length, names: plan.tables.map(function (x) { return x.name; }).join(", "), rows: res.rows.length })).appendTo(note);
            if (plan.differences.length > 0) {
                $("<div></div>").text(t("map.mergeDiffers", { count: plan.differences.length, n: plan.differences.length })).appendTo(note);
            }
            plan.differences.forEach(function (d, i) {
                var box = $('<fieldset class="lis-tm-merge-difference"></fieldset>').attr("data-difference", d.id).appendTo(note);
                $("<legend></legend>").text(t(d.way === "orders" ? "map.differOrders" : "map.differResults", { test: d.lisName || d.lisTestId })).appendTo(box);
                d.options.forEach(function (o, j) {
                    var codes = o.rows.length === 0 ? t("map.notMapped") : o.rows.map(function (r) {
                        return r.instrumentCode + (r.instrumentSubCode ? "/" + r.instrumentSubCode : "");
                    }).join(", ");
                    var label = $("<label></label>").css({ display: "block", width: "auto" }).appendTo(box);
                    $('<input type="radio">').attr({ name: "lis-tm-merge-" + i, value: j }).css({ width: "auto", margin: "0 6px 0 0" }).appendTo(label);
                    $("<span></span>").text(codes + " — " + o.nodes.map(function (id) { return names[id] || id; }).join(", ")).appendTo(label);
                });
            });
            var buttons = $("<div></div>").css("margin-top", "6px").appendTo(note);
            $('<button type="button" class="red-ui-button red-ui-button-small primary" id="node-input-map-merge-now"></button>').text(t("label.mergeNow")).appendTo(buttons).on("click", function (evt) {
                evt.preventDefault();
                apply();
            });
            $('<button type="button" class="red-ui-button red-ui-button-small"></button>').text(t("label.mergeCancel")).css("margin-left", "6px").appendTo(buttons).on("click", function (evt) {
                evt.preventDefault();
                plan = null;
                show();
            });
            options.resize();
        }

        function apply() {
            var choices = {};
            plan.differences.forEach(function (d, i) {
                var picked = note.find('input[name="lis-tm-merge-' + i + '"]:checked').val();
                if (picked !== undefined) {
                    choices[d.id] = Number(picked);
                }
            });
            post({ tables: plan.tables, choices: choices }).done(function (res) {
                create(res.rows);
            }).fail(failed);
        }

        /** The new map, the other tables' nodes moved onto it (one undo step), and this node's select set to it. */
        function create(rows) {
            var def = RED.nodes.getType("lis-test-map");
            var map = { id: RED.nodes.id(), _def: def, type: "lis-test-map", users: [], name: "", instrument: text($("#node-input-instrument").val()) || node.instrument || "", lis: $("#node-input-lis").val() || node.lis || "", mapping: rows };
            map._ = def._;
            RED.nodes.add(map);
            var events = [{ t: "add", nodes: [map.id], dirty: RED.nodes.dirty() }];
            plan.tables.forEach(function (x) {
                var other = RED.nodes.node(x.node);
                if (!other || other.id === node.id) {
                    return;
                }
                events.push({ t: "edit", node: other, changes: { map: other.map, mapping: other.mapping }, changed: other.changed, dirty: RED.nodes.dirty() });
                other.map = map.id;
                other.mapping = [];
                other.changed = true;
                other.dirty = true;
                map.users.push(other);
            });
            pushed = { t: "multi", events: events, dirty: RED.nodes.dirty() };
            RED.history.push(pushed);
            RED.nodes.dirty(true);
            RED.view.redraw(true);
            $("<option></option>").val(map.id).text(map.instrument || map.id).appendTo(select);
            select.val(map.id).trigger("change");
            merged = { map: map.instrument || map.id, rows: rows.length, n: plan.tables.length };
            plan = null;
            options.merged(map.id);
            show();
        }

        select.on("change", show);
        show();
        return {
            cancel: function () {
                // Only while the merge is still the last thing done: an undo must never take back something else.
                if (pushed && RED.history.peek() === pushed) {
                    RED.history.pop();
                    RED.view.redraw(true);
                }
                pushed = null;
            }
        };
    }

    window.LisBridgeTestMapMerge = { prepare: prepare };
})();
