// door's web page: one xterm.js terminal joined to the server's /ws endpoint.
//
// The framing (no subprotocol): we send keys as binary messages (UTF-8 bytes) and, as
// text, JSON {"type": "hello", cols, rows, term} once the socket opens, then
// {"type": "resize", cols, rows} whenever the terminal's size changes. The server sends
// the terminal's output as binary messages and {"type": "bye", reason} as text before it
// closes. Mouse reporting needs nothing here: when door turns SGR mouse mode on, xterm.js
// reports clicks through onData like keys.
"use strict";

(function () {
  const TERM_TYPE = "xterm-256color";
  const ENTER = "\r";
  // The 16 colours as BBS terminals (SyncTERM, the PC's CGA) show them. xterm.js's own
  // black is a dark grey (#2e3436), so cells door paints with an explicit black
  // background (SGR 40) would stand out as grey blocks on the black page.
  const CGA_THEME = {
    background: "#000000",
    foreground: "#aaaaaa",
    cursor: "#aaaaaa",
    black: "#000000",
    red: "#aa0000",
    green: "#00aa00",
    yellow: "#aa5500",
    blue: "#0000aa",
    magenta: "#aa00aa",
    cyan: "#00aaaa",
    white: "#aaaaaa",
    brightBlack: "#555555",
    brightRed: "#ff5555",
    brightGreen: "#55ff55",
    brightYellow: "#ffff55",
    brightBlue: "#5555ff",
    brightMagenta: "#ff55ff",
    brightCyan: "#55ffff",
    brightWhite: "#ffffff",
  };

  const nameEl = document.getElementById("name");
  const statusEl = document.getElementById("status");
  const reconnectEl = document.getElementById("reconnect");
  const container = document.getElementById("terminal");

  const term = new Terminal({
    cursorBlink: true,
    // Local fonts only: the page loads nothing from elsewhere.
    fontFamily: '"DejaVu Sans Mono", "Liberation Mono", ui-monospace, Menlo, Consolas, monospace',
    fontSize: 16,
    scrollback: 0, // door draws full screens; there is nothing to scroll back to
    theme: CGA_THEME,
  });
  const fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(container);
  fit.fit();
  term.focus();
  // The page's own terminal, for tests/e2e/test_browser.py to read its buffer and cell
  // size; a page script can already reach everything this object shows.
  window.doorTerm = term;

  const encoder = new TextEncoder();
  let socket = null;
  let open = false;

  function socketUrl() {
    // Beside the page (so a reverse proxy may serve door under a path), ws: or wss: by
    // the page's own scheme.
    const url = new URL("ws", window.location.href);
    url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
    return url.href;
  }

  function setStatus(text, closed) {
    statusEl.textContent = text;
    statusEl.classList.toggle("closed", closed);
    reconnectEl.hidden = !closed;
  }

  function sendJson(message) {
    if (open) {
      socket.send(JSON.stringify(message));
    }
  }

  function sendBytes(bytes) {
    if (open) {
      socket.send(bytes);
    }
  }

  function connect() {
    setStatus("connecting…", false);
    const ws = new WebSocket(socketUrl());
    ws.binaryType = "arraybuffer";
    let reason = "";
    socket = ws;

    ws.addEventListener("open", function () {
      if (socket !== ws) {
        return;
      }
      open = true;
      setStatus("connected", false);
      fit.fit();
      // the browser's time zone: offered to the player in their settings
      let tz = null;
      try { tz = Intl.DateTimeFormat().resolvedOptions().timeZone || null; } catch (e) { tz = null; }
      sendJson({ type: "hello", cols: term.cols, rows: term.rows, term: TERM_TYPE, tz });
      term.focus();
    });

    ws.addEventListener("message", function (event) {
      if (socket !== ws) {
        return;
      }
      if (typeof event.data === "string") {
        let message = null;
        try {
          message = JSON.parse(event.data);
        } catch (e) {
          return; // not ours to show
        }
        if (message && message.type === "bye" && typeof message.reason === "string") {
          reason = message.reason;
        }
        return;
      }
      term.write(new Uint8Array(event.data));
    });

    ws.addEventListener("close", function () {
      if (socket !== ws) {
        return;
      }
      const wasOpen = open;
      open = false;
      // (the reason is written into the terminal: no control characters from it)
      const said = (reason || (wasOpen ? "the connection closed" : "could not connect"))
        .replace(/[\x00-\x1f\x7f-\x9f]/g, "");
      setStatus(said, true);
      // Leave the screen as it was, but stop mouse reports and colours from the session,
      // so that only Enter (or the button) does anything now.
      term.write(
        "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[0m\r\n" +
          "\x1b[1m" + said.replace(/[.!]+$/, "") + ". Press Enter or click Reconnect to " +
          "connect again.\x1b[0m"
      );
    });
  }

  function reconnect() {
    if (open) {
      return;
    }
    term.reset();
    connect();
    term.focus();
  }

  term.onData(function (data) {
    if (open) {
      sendBytes(encoder.encode(data));
    } else if (socket && socket.readyState === WebSocket.CLOSED && data === ENTER) {
      reconnect();
    }
  });

  // Bytes that are not UTF-8 text (xterm.js uses this for old-style mouse reports only).
  term.onBinary(function (data) {
    const bytes = new Uint8Array(data.length);
    for (let i = 0; i < data.length; i++) {
      bytes[i] = data.charCodeAt(i) & 0xff;
    }
    sendBytes(bytes);
  });

  term.onResize(function (size) {
    sendJson({ type: "resize", cols: size.cols, rows: size.rows });
  });

  let fitPending = false;
  window.addEventListener("resize", function () {
    if (!fitPending) {
      fitPending = true;
      window.requestAnimationFrame(function () {
        fitPending = false;
        fit.fit();
      });
    }
  });

  reconnectEl.addEventListener("click", reconnect);

  fetch("name.json", { cache: "no-store" })
    .then(function (response) {
      return response.ok ? response.json() : null;
    })
    .then(function (body) {
      if (body && typeof body.name === "string" && body.name.trim() !== "") {
        nameEl.textContent = body.name;
        document.title = body.name;
      }
    })
    .catch(function () {
      // The name is a nicety; the terminal works without it.
    });

  connect();
})();
