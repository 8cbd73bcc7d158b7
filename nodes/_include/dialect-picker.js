        // Shared by the analyzer-message dialogs (scripts/build.mjs puts it in place): the dialect select filled from
        // the package's dialect route, a dialect the list does not know kept as "id (?)", and a line describing the
        // chosen one (`describe(profile)` gives its parts).
        // A long list (the file dialects: dozens) is grouped by vendor, the generic ones first, then by name, so an
        // integrator finds an instrument by its maker as in the node's help.
        var GROUP_FROM = 12;
        function byVendor(list) {
            var groups = {};
            list.forEach(function (p) { (groups[p.vendor] = groups[p.vendor] || []).push(p); });
            var first = list[0] ? list[0].vendor : undefined;
            return Object.keys(groups).sort(function (a, b) {
                if (a === first || b === first) { return a === first ? (b === first ? 0 : -1) : 1; }
                return a.localeCompare(b);
            }).map(function (vendor) {
                return { vendor: vendor, profiles: groups[vendor].slice().sort(function (a, b) { return a.label.localeCompare(b.label); }) };
            });
        }
        function dialectPicker(node, options) {
            var select = $("#node-input-dialect");
            var info = options.info;
            var profiles = [];
            function show() {
                var p = profiles.filter(function (x) { return x.id === select.val(); })[0];
                info.text(p ? options.describe(p).join(" · ") : "");
            }
            $.getJSON(options.route, function (list) {
                profiles = list;
                select.empty();
                if (list.length <= GROUP_FROM) {
                    list.forEach(function (p) { $("<option>").val(p.id).text(p.label).appendTo(select); });
                } else {
                    byVendor(list).forEach(function (g) {
                        var group = $("<optgroup>").attr("label", g.vendor).appendTo(select);
                        g.profiles.forEach(function (p) { $("<option>").val(p.id).text(p.label).appendTo(group); });
                    });
                }
                if (node.dialect && !list.some(function (p) { return p.id === node.dialect; })) {
                    $("<option>").val(node.dialect).text(node.dialect + " (?)").appendTo(select);
                }
                select.val(node.dialect || options.fallback);
                show();
            });
            select.on("change", show);
            $("#node-input-timeZone").attr("placeholder", Intl.DateTimeFormat().resolvedOptions().timeZone);
            return select;
        }
