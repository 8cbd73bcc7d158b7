        // Shared by the dialogs that hold a mapping table, lis-test-map's and a test-mapper's own (scripts/build.mjs
        // puts it in place): the rows' validator, the editor scripts loaded when the dialog first opens, and the
        // table's life in the dialog. `collect` reads the drawn table back; saved before it was drawn (a script still
        // loading), the node keeps its rows as they were.
        function validMapping(v) {
            return v === undefined || Array.isArray(v) && v.every(function (r) {
                return r !== null && typeof r === "object" &&
                    typeof r.lisTestId === "string" && r.lisTestId.trim() !== "" &&
                    typeof r.lisCode === "string" && r.lisCode.trim() !== "";
            }) || RED._("@lis-bridge/node-red-lis-bridge/test-mapper:test-mapper.errors.mapping");
        }
        function loadEditorScripts(scripts, then) {
            var pending = scripts.filter(function (n) { return !window[n.global]; });
            if (pending.length === 0) { then(); return; }
            $.when.apply($, pending.map(function (n) {
                return $.ajax({ url: "lis-bridge/editor/" + n.file, dataType: "script", cache: true });
            })).done(then);
        }
        function mappingTable(prefix) {
            var state = { collect: null, height: null };
            function size() {
                if (state.height !== null && window.LisBridgeTestMapper) { window.LisBridgeTestMapper.size(state.height, prefix); }
            }
            return {
                draw: function (node) { state.collect = window.LisBridgeTestMapper.prepare(node, prefix); size(); return state.collect; },
                rows: function (node) { return state.collect ? state.collect() : node.mapping || []; },
                /** The dialog's Done: the drawn table's rows become the node's. */
                save: function (node) { if (state.collect) { node.mapping = state.collect(); } state.collect = null; },
                close: function () { state.collect = null; },
                resize: function (height) { if (height !== undefined) { state.height = height; } size(); }
            };
        }
