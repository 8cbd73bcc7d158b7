        // Shared by the analyzer-message dialogs (scripts/build.mjs puts it in place): the site's dialect changes, and
        // the dialect section (nodes/editor/dialect-editor.js, one script fetched once with the editor's credentials)
        // under the picker, refreshed when the dialect or the time zone changes.
        var dialectOverrides = {
            value: "",
            // The runtime checks the dialect itself; this only catches text that is no JSON object.
            validate: function (v) {
                if (!v || !String(v).trim()) { return true; }
                try { var o = JSON.parse(v); return !!o && typeof o === "object" && !Array.isArray(o); } catch (e) { return false; }
            }
        };
        function mountDialectSection(node, select, options) {
            function mountEditor() {
                node._dialectEditor = window.LisBridgeDialectEditor.mount({
                    container: options.container,
                    overrides: $("#node-input-dialectOverrides"),
                    base: function () { return select.val() || node.dialect || options.fallback; },
                    timeZone: function () { return $("#node-input-timeZone").val() || Intl.DateTimeFormat().resolvedOptions().timeZone; },
                    protocol: options.protocol,
                    linkType: options.linkType
                });
            }
            if (window.LisBridgeDialectEditor) { mountEditor(); }
            else { $.ajax({ url: "lis-bridge/editor/dialect-editor.js", dataType: "script", cache: true }).done(mountEditor); }
            function refresh() { if (node._dialectEditor) { node._dialectEditor.refresh(); } }
            select.on("change", refresh);
            $("#node-input-timeZone").on("change", refresh);
        }
        function closeDialectSection(node) {
            if (node._dialectEditor) { node._dialectEditor.close(); delete node._dialectEditor; }
        }
