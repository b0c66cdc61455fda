/* The pattern editor: Ace (vendor/, offline) speaking the Streamlit component protocol.
 *
 * Python sends (streamlit:render args): text, version, mode ("dsl" or "sql"), completions
 * ({keywords, functions, types, attributes, variables: {var: type}, members: {var: [attr]}}),
 * markers ([{line, column, width, message, hint, severity, text}], 1-based), height, label.
 * The editor sends {text, n} (streamlit:setComponentValue) on Ctrl+Enter / Cmd+Enter, when it
 * loses focus and after a pause in typing, only when the text differs from what Python has.
 * It replaces its text with args.text when the version changes, unless args.text is what it
 * sent last (the person's own text, which they may have typed on since).
 * Every string from Python reaches the page as text (textContent), never as HTML. */
(function () {
  "use strict";
  var SEND_DELAY_MS = 800;
  var EDITOR_ID = Math.random().toString(36).slice(2);  // this page's editor: its sends differ from an earlier one's
  var STRATEGY_RE = "(?:strict[-_]contiguity|partition[-_]contiguity|skip[-_]till[-_]next[-_]match|skip[-_]till[-_]any[-_]match)\\b";

  var Range = ace.require("ace/range").Range;
  var oop = ace.require("ace/lib/oop");
  var TextMode = ace.require("ace/mode/text").Mode;
  var TextHighlightRules = ace.require("ace/mode/text_highlight_rules").TextHighlightRules;
  ace.require("ace/ext/language_tools");

  var box = document.getElementById("editor");
  var statusLine = document.getElementById("status");
  var labelLine = document.getElementById("label");
  var tip = document.getElementById("tip");
  var editor = ace.edit(box);
  window.patternEditor = editor;

  var st = {
    version: null, argsText: null, lastSent: null, known: null, n: 0, applying: false,
    mode: null, modeKey: null, completions: {}, markers: [], markerIds: [], height: -1,
    timer: null, sending: false
  };

  function post(type, data) {
    var message = {isStreamlitMessage: true, type: type};
    for (var k in data || {}) { message[k] = data[k]; }
    window.parent.postMessage(message, "*");
  }

  function fitFrame() {
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height) + 2;
    if (h !== st.height) {
      st.height = h;
      post("streamlit:setFrameHeight", {height: h});
    }
  }

  function showStatus() {
    var ms = st.markers;
    statusLine.className = "";
    if (st.sending) {
      statusLine.textContent = "Applying…";
    } else if (ms.length) {
      statusLine.className = ms[0].severity === "warning" ? "warning" : "error";
      statusLine.textContent = ms.map(function (m) { return m.text; }).join("\n");
    } else {
      statusLine.textContent = "";
    }
    fitFrame();
  }

  function send() {
    clearTimeout(st.timer);
    var text = editor.getValue();
    if (text === st.known) { return; }
    st.lastSent = text;
    st.known = text;
    st.n += 1;
    st.sending = true;
    showStatus();
    post("streamlit:setComponentValue", {value: {text: text, n: st.n, editor: EDITOR_ID}, dataType: "json"});
    setTimeout(function () { if (st.sending) { st.sending = false; showStatus(); } }, 10000);
  }

  // ------------------------------------------------------------------ highlighting
  function wordSet(list, lower) {
    var out = Object.create(null);
    (list || []).forEach(function (w) { out[lower ? String(w).toLowerCase() : String(w)] = true; });
    return out;
  }

  function patternMode(c, sql) {
    var keywords = wordSet(c.keywords, true);
    var functions = wordSet(c.functions, true);
    var types = wordSet(c.types, false);
    var variables = wordSet(Object.keys(c.variables || {}), false);
    Object.keys(c.variables || {}).forEach(function (v) { types[c.variables[v]] = true; });
    var units = sql ? wordSet([]) : wordSet(["ms", "msec", "msecs", "millisecond", "milliseconds", "s", "sec", "secs", "second",
      "seconds", "min", "mins", "minute", "minutes", "h", "hr", "hrs", "hour", "hours", "d", "day", "days",
      "event", "events", "week", "weeks"], true);
    function classify(word) {
      var low = word.toLowerCase();
      if (functions[low]) { return "support.function"; }
      if (variables[word]) { return "variable"; }
      if (types[word]) { return "storage.type"; }
      if (units[low]) { return "constant.unit"; }
      if (keywords[low]) { return "keyword"; }
      return "identifier";
    }
    var Rules = function () {
      this.$rules = {start: [
        {token: "comment", regex: sql ? "--.*$" : "(?:--|#|//).*$"},
        {token: "string", regex: "'(?:[^'\\\\]|\\\\.)*'"},
        {token: "string", regex: "\"(?:[^\"\\\\]|\\\\.)*\""}
      ].concat(sql ? [] : [{token: "keyword.strategy", regex: STRATEGY_RE, caseInsensitive: true}]).concat([
        {token: "constant.numeric", regex: "(?:\\d+(?:\\.\\d+)?|\\.\\d+)(?:[eE][+-]?\\d+)?%?"},
        {token: classify, regex: "[A-Za-z_][A-Za-z_0-9]*"},
        {token: "keyword.operator", regex: "\\.\\.|==|!=|<>|<=|>=|[-+*/%<>=!~\u00ac?:;]"},
        {token: "paren.lparen", regex: "[\\[({]"},
        {token: "paren.rparen", regex: "[\\])}]"},
        {token: "text", regex: "\\s+"}
      ])};
      this.normalizeRules();
    };
    oop.inherits(Rules, TextHighlightRules);
    var Mode = function () { this.HighlightRules = Rules; };
    oop.inherits(Mode, TextMode);
    Mode.prototype.lineCommentStart = "--";
    Mode.prototype.$id = sql ? "ace/mode/cep_match_recognize" : "ace/mode/cep_pattern";
    return new Mode();
  }

  function setMode(mode, c) {
    var key = mode + "|" + JSON.stringify([c.types || [], c.variables || {}, c.keywords || [], c.functions || []]);
    if (key === st.modeKey) { return; }
    st.modeKey = key;
    editor.session.setMode(patternMode(c, mode === "sql"));
  }

  // ------------------------------------------------------------------ completion
  function items(words, meta, score) {
    return (words || []).map(function (w) { return {caption: w, value: w, meta: meta, score: score}; });
  }

  var completer = {
    id: "patternWords",
    triggerCharacters: ["."],
    getCompletions: function (ed, session, pos, prefix, callback) {
      var c = st.completions || {};
      var before = session.getLine(pos.row).slice(0, pos.column - prefix.length);
      var member = /([A-Za-z_][A-Za-z_0-9]*)\s*(\[[^\]\n]*\])?\s*\.\s*$/.exec(before);
      if (member) {
        var attrs = (c.members || {})[member[1]];
        var of = (c.variables || {})[member[1]];
        var meta = st.mode === "sql" ? "column" : (of ? "attribute of " + of : "attribute");
        callback(null, attrs ? items(attrs, meta, 1000) : []);
        return;
      }
      var vars = Object.keys(c.variables || {}).map(function (v) {
        var type = c.variables[v];
        return {caption: v, value: v, meta: st.mode === "sql" ? "variable" : "variable (" + type + ")", score: 900};
      });
      callback(null, [].concat(
        vars,
        items(c.types, "event type", 800),
        items(c.keywords, "keyword", 600),
        items(c.functions, st.mode === "sql" ? "function" : "aggregate", 500),
        items(c.attributes, st.mode === "sql" ? "column" : "attribute", 400)
      ));
    }
  };

  // ------------------------------------------------------------------ markers
  function setMarkers(markers) {
    var session = editor.session;
    st.markerIds.forEach(function (id) { session.removeMarker(id); });
    st.markerIds = [];
    st.markers = markers || [];
    session.setAnnotations(st.markers.map(function (m) {
      return {row: m.line - 1, column: m.column - 1, text: m.text, type: m.severity === "warning" ? "warning" : "error"};
    }));
    st.markers.forEach(function (m) {
      var range = new Range(m.line - 1, m.column - 1, m.line - 1, m.column - 1 + m.width);
      var css = m.severity === "warning" ? "pe-warning" : "pe-error";
      st.markerIds.push(session.addMarker(range, css, "text", true));
    });
  }

  function markerAt(pos) {
    for (var i = 0; i < st.markers.length; i++) {
      var m = st.markers[i];
      if (pos.row === m.line - 1 && pos.column >= m.column - 1 && pos.column <= m.column - 1 + m.width) { return m; }
    }
    return null;
  }

  editor.on("mousemove", function (e) {
    var m = markerAt(e.getDocumentPosition());
    if (!m) { tip.style.display = "none"; return; }
    tip.textContent = m.text;
    tip.style.display = "block";
    tip.style.left = Math.max(4, Math.min(e.clientX + 8, window.innerWidth - tip.offsetWidth - 4)) + "px";
    tip.style.top = (e.clientY + 16) + "px";
  });
  box.addEventListener("mouseleave", function () { tip.style.display = "none"; });

  // ------------------------------------------------------------------ the editor
  editor.setOptions({
    enableBasicAutocompletion: true, enableLiveAutocompletion: true, enableSnippets: false,
    showPrintMargin: false, useWorker: false, wrap: true, tabSize: 2, useSoftTabs: true,
    highlightActiveLine: true, fontSize: "14px", scrollPastEnd: 0
  });
  editor.completers = [completer];
  editor.commands.addCommand({
    name: "applyPattern", bindKey: {win: "Ctrl-Enter", mac: "Command-Enter"}, exec: send
  });
  // after `x.` or `x[i].` the attributes of x, also when the list of words was open while typing x
  editor.commands.on("afterExec", function (e) {
    if (e.command.name !== "insertstring" || e.args !== ".") { return; }
    setTimeout(function () {
      if (editor.completer && editor.completer.activated) { editor.completer.detach(); }
      editor.execCommand("startAutocomplete");
    }, 0);
  });
  editor.on("change", function () {
    if (st.applying) { return; }
    if (st.markers.length) { setMarkers([]); showStatus(); }
    clearTimeout(st.timer);
    st.timer = setTimeout(send, SEND_DELAY_MS);
  });
  editor.on("blur", function () { box.classList.remove("focused"); send(); });
  editor.on("focus", function () { box.classList.add("focused"); });

  function render(args) {
    var text = typeof args.text === "string" ? args.text : "";
    st.mode = args.mode === "sql" ? "sql" : "dsl";
    st.completions = args.completions || {};
    labelLine.textContent = args.label || "";
    labelLine.style.display = args.label ? "block" : "none";
    var height = Math.max(80, Number(args.height) || 260);
    if (box.style.height !== height + "px") { box.style.height = height + "px"; editor.resize(); }
    setMode(st.mode, st.completions);
    var fresh = args.version !== st.version || text !== st.argsText;
    if (fresh) {
      var first = st.version === null;
      st.version = args.version;
      st.argsText = text;
      if (first || text !== st.lastSent) {
        if (editor.getValue() !== text) {
          st.applying = true;
          editor.session.setValue(text);  // a new text from Python: its own undo history
          st.applying = false;
        }
        clearTimeout(st.timer);
      }
      st.known = text;
    }
    st.sending = false;
    setMarkers(editor.getValue() === text ? args.markers : []);  // markers are about args.text
    showStatus();
  }

  window.addEventListener("message", function (event) {
    var data = event.data || {};
    if (data.type === "streamlit:render") { render(data.args || {}); }
  });
  window.addEventListener("resize", fitFrame);
  post("streamlit:componentReady", {apiVersion: 1});
  showStatus();
})();
