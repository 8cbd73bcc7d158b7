        // Shared by the analyzer-message dialogs (scripts/build.mjs puts it in place): the dialect select filled from
        // the package's dialect route, a dialect the list does not know kept as "id (?)", and a line describing the
        // chosen one (`describe(profile)` gives its parts).
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
                list.forEach(function (p) {
                    $("<option>").val(p.id).text(p.label).appendTo(select);
                });
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
