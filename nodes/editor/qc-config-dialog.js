/**
 * The lis-qc dialog (nodes/lis-qc.html loads it): the control table (what the analyzer sends for a control, to its
 * material, lot and expiry), the tests with rules of their own, and the rule set's line, which says in Westgard's
 * notation what is in force. The fields the dialog's template holds (analyzer, rules, policy) are Node-RED's own.
 */
(function () {
    "use strict";
    var NS = "@lis-bridge/node-red-lis-bridge/lis-qc:lis-qc.";
    function _(key, subs) { return RED._(NS + key, subs); }

    // Westgard's recommended sets (westgard.com/multirule4.html), as lib/qc/config.ts resolves them.
    var FAMILIES = {
        pairs: { rules: ["1-3s", "2-2s", "R-4s", "4-1s"], mean: ["8x", "10x", "12x"] },
        threes: { rules: ["1-3s", "2of3-2s", "R-4s", "3-1s"], mean: ["6x", "9x", "12x"] }
    };

    function familyOf(perRun) {
        return perRun === "3" || perRun === "6" ? FAMILIES.threes : FAMILIES.pairs;
    }

    /** The set in force as the runtime will resolve it, in the notation the Lab sidebar's charts show. */
    function ruleLine(perRun, meanRule, warning, own) {
        var list = String(own || "").split(/[\s,/]+/).filter(function (r) { return r !== ""; });
        if (list.length > 0) {
            var rejecting = list.filter(function (r) { return r !== "1-2s"; }).join("/");
            return list.indexOf("1-2s") >= 0 ? rejecting + " (1-2s warning)" : rejecting;
        }
        var f = familyOf(perRun);
        var mean = f.mean.indexOf(meanRule) >= 0 ? meanRule : f.mean[0];
        var set = f.rules.concat([mean]).join("/");
        return warning ? set + " (1-2s warning)" : set;
    }

    function input(value, placeholder, width) {
        return $('<input type="text">').val(value || "").attr("placeholder", placeholder || "").css({ width: width || "18%", marginRight: "4px" });
    }

    function controlsList(node) {
        var list = $("#node-config-input-controls-list").css("min-height", "120px").editableList({
            addItem: function (row, i, data) {
                row.addClass("lis-qc-control");
                input(data.code, _("placeholder.code"), "24%").addClass("lis-qc-code").appendTo(row);
                input(data.test, _("placeholder.test"), "14%").addClass("lis-qc-test").appendTo(row);
                input(data.material, _("placeholder.material"), "14%").addClass("lis-qc-material").appendTo(row);
                input(data.lot, _("placeholder.lot"), "18%").addClass("lis-qc-lot").appendTo(row);
                input(data.expiry, "YYYY-MM-DD", "18%").addClass("lis-qc-expiry").appendTo(row);
            },
            removable: true,
            sortable: true,
            header: $("<div>").text(_("label.controlsHeader"))
        });
        (Array.isArray(node.controls) ? node.controls : []).forEach(function (r) { list.editableList("addItem", r); });
        return list;
    }

    function byTestList(node) {
        var list = $("#node-config-input-bytest-list").css("min-height", "60px").editableList({
            addItem: function (row, i, data) {
                row.addClass("lis-qc-bytest");
                input(data.test, _("placeholder.test"), "20%").addClass("lis-qc-bytest-test").appendTo(row);
                var select = $('<select class="lis-qc-bytest-perrun" style="width: 30%; margin-right: 4px;"></select>').appendTo(row);
                ["2", "3", "4", "6"].forEach(function (n) { $("<option>").val(n).text(_("perRun." + n)).appendTo(select); });
                select.val(String(data.controlsPerRun || "2"));
                input(data.rules, _("placeholder.rules"), "40%").addClass("lis-qc-bytest-rules").appendTo(row);
            },
            removable: true
        });
        (Array.isArray(node.byTest) ? node.byTest : []).forEach(function (r) { list.editableList("addItem", r); });
        return list;
    }

    function prepare(node) {
        var controls = controlsList(node);
        var byTest = byTestList(node);
        function meanChoices() {
            var f = familyOf($("#node-config-input-controlsPerRun").val());
            var select = $("#node-config-input-meanRule");
            var was = select.val() || node.meanRule;
            select.empty();
            f.mean.forEach(function (m) { $("<option>").val(m).text(m).appendTo(select); });
            select.val(f.mean.indexOf(was) >= 0 ? was : f.mean[0]);
        }
        function showLine() {
            $("#node-config-input-rule-line").text(_("ruleLine", { rules: ruleLine($("#node-config-input-controlsPerRun").val(), $("#node-config-input-meanRule").val(), $("#node-config-input-warning").prop("checked"), $("#node-config-input-rules").val()) }));
        }
        $("#node-config-input-controlsPerRun").on("change", function () { meanChoices(); showLine(); });
        $("#node-config-input-meanRule, #node-config-input-warning, #node-config-input-rules").on("change keyup", showLine);
        meanChoices();
        showLine();
        return {
            save: function () {
                var rows = [];
                controls.editableList("items").each(function () {
                    var r = $(this);
                    var row = { code: r.find(".lis-qc-code").val().trim(), test: r.find(".lis-qc-test").val().trim(), material: r.find(".lis-qc-material").val().trim(), lot: r.find(".lis-qc-lot").val().trim(), expiry: r.find(".lis-qc-expiry").val().trim() };
                    if (row.code || row.material || row.lot) { rows.push(row); }
                });
                node.controls = rows;
                var tests = [];
                byTest.editableList("items").each(function () {
                    var r = $(this);
                    var t = { test: r.find(".lis-qc-bytest-test").val().trim(), controlsPerRun: r.find(".lis-qc-bytest-perrun").val(), rules: r.find(".lis-qc-bytest-rules").val().trim() };
                    if (t.test) { tests.push(t); }
                });
                node.byTest = tests;
            }
        };
    }

    window.LisBridgeQcDialog = { prepare: prepare, ruleLine: ruleLine };
})();
