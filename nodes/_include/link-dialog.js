        // Shared by every analyzer link's dialog (scripts/build.mjs puts it in place): what the links have in common,
        // with the rows of nodes/_include/link-name.html and link-rows.html.
        function linkText(key) {
            return RED._("@lis-bridge/node-red-lis-bridge/lis-config:common.linkDialog." + key);
        }
        /** The defaults of those rows; the alarm minutes are numeric settings (ALARM_SETTINGS in lib/settings/node-settings.ts). */
        var LINK_DEFAULTS = {
            journal: { value: true },
            trace: { value: true },
            traceRedact: { value: false },
            // The expected-activity rule's weekdays (0 = Sunday) and hours; its minutes are a numeric setting.
            // "none": every box unticked, refused (empty, in flows from before the setting, is every day).
            // Two arguments: Node-RED (3.x and later) takes the string a one-argument validator returns for valid.
            quietDays: { value: "1,2,3,4,5,6", validate: function (v, opt) { return v !== "none" || linkText("alarms.noDays"); } },
            quietFrom: { value: "07:00", validate: function (v, opt) { return !v || /^\d{1,2}:\d{2}$/.test(v) || linkText("alarms.badTime"); } },
            quietTo: { value: "19:00", validate: function (v, opt) { return !v || /^\d{1,2}:\d{2}$/.test(v) || linkText("alarms.badTime"); } }
        };
        /**
         * Registers the analyzer link \`type\`: \`own.defaults\` its own fields, \`own.settings\` its numeric settings
         * (the build's marker), \`own.prepare\` its own oneditprepare part. Its catalog has paletteLabel,
         * placeholder.name, inputs.line and outputs.write / message / sent.
         */
        function registerLink(type, own) {
            RED.nodes.registerType(type, {
                category: "LIS",
                color: "#c0deed",
                defaults: Object.assign({ name: { value: "" } }, own.defaults, LINK_DEFAULTS, own.settings),
                inputs: 1,
                outputs: 3,
                icon: "lis-link.svg",
                paletteLabel: function () {
                    return this._(type + ".paletteLabel");
                },
                label: function () {
                    return this.name || this._(type + ".paletteLabel");
                },
                labelStyle: function () {
                    return this.name ? "node_label_italic" : "";
                },
                inputLabels: function () {
                    return this._(type + ".inputs.line");
                },
                outputLabels: function (i) {
                    return this._(type + ".outputs." + ["write", "message", "sent"][i]);
                },
                oneditprepare: function () {
                    if (own.prepare) own.prepare.call(this);
                    $("#node-input-name").attr("placeholder", RED._("@lis-bridge/node-red-lis-bridge/" + type + ":" + type + ".placeholder.name"));
                    prepareLinkRows(this);
                }
            });
        }
        /** oneditprepare's part for the shared rows. */
        function prepareLinkRows(node) {
            // Flows from before these settings existed run with them on: show what they run with.
            ["journal", "trace"].forEach(function (key) {
                if (node[key] === undefined) $("#node-input-" + key).prop("checked", true);
            });
            function toggleRedact() {
                $(".lis-link-trace").toggle($("#node-input-trace").is(":checked"));
            }
            $("#node-input-trace").on("change", toggleRedact);
            toggleRedact();
            // Weekday boxes kept in the hidden quietDays field, Monday first as labs read a week.
            var days = $("#lis-link-quiet-days");
            var chosen = String($("#node-input-quietDays").val() || "").split(",").filter(function (d) { return d !== ""; });
            [1, 2, 3, 4, 5, 6, 0].forEach(function (d) {
                var box = $('<input type="checkbox" style="width:auto; margin: 0 2px 0 6px;">').attr("data-day", d).prop("checked", chosen.length === 0 || chosen.indexOf(String(d)) >= 0);
                $("<label style=\"width:auto; margin-right:4px;\"></label>").append(box).append($("<span></span>").text(linkText("alarms.day" + d))).appendTo(days);
            });
            days.on("change", "input", function () {
                var on = days.find("input:checked").map(function () { return $(this).attr("data-day"); }).get().sort();
                $("#node-input-quietDays").val(on.length === 0 ? "none" : on.join(","));
            });
        }
