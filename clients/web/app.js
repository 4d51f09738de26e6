// thue-server status page: the server's health (/healthz) and its public rooms
// (/api/rooms, PROTOCOL.md sections 4 and 13), refreshed every 5 seconds.
// Plain script, no build step; everything the server sends is shown as text, never HTML.
'use strict';

(function () {
  const REFRESH_MS = 5000;
  const STATUS_TEXT = { waiting: 'waiting', playing: 'playing', finished: 'finished' };

  function byId(id) {
    return document.getElementById(id);
  }

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  // GET path as JSON: {ok, status, body} (body null when the answer is not JSON); throws
  // only when the server cannot be reached.
  async function getJSON(path) {
    const res = await fetch(path, { cache: 'no-store', headers: { Accept: 'application/json' } });
    let body = null;
    try {
      body = await res.json();
    } catch (e) {
      body = null;
    }
    return { ok: res.ok, status: res.status, body: body };
  }

  function formatDuration(totalSeconds) {
    let s = Math.max(0, Math.floor(Number(totalSeconds) || 0));
    const d = Math.floor(s / 86400);
    s -= d * 86400;
    const h = Math.floor(s / 3600);
    s -= h * 3600;
    const m = Math.floor(s / 60);
    s -= m * 60;
    if (d > 0) return d + ' d ' + h + ' h';
    if (h > 0) return h + ' h ' + m + ' min';
    if (m > 0) return m + ' min ' + s + ' s';
    return s + ' s';
  }

  function formatMs(ms) {
    const n = Number(ms) || 0;
    if (n % 60000 === 0) return n / 60000 + ' min';
    return n / 1000 + ' s';
  }

  function formatClock(clock) {
    if (!clock || typeof clock !== 'object') return 'no clock';
    const inc = Number(clock.increment_ms) || 0;
    return formatMs(clock.initial_ms) + (inc > 0 ? ' + ' + formatMs(inc) : '');
  }

  function setStatus(kind, text) {
    const node = byId('status');
    node.className = 'status status-' + kind;
    node.textContent = text;
  }

  async function refreshStatus() {
    try {
      const r = await getJSON('/healthz');
      const b = r.body || {};
      if (r.ok && b.status === 'ok') {
        setStatus('ok', 'Server up' + (b.version ? ', version ' + b.version : '') +
          (b.uptime_s !== undefined ? ', for ' + formatDuration(b.uptime_s) : ''));
      } else if (r.status === 503) {
        setStatus('starting', 'Server starting or stopping');
      } else {
        setStatus('down', 'Server answered ' + r.status);
      }
    } catch (e) {
      setStatus('down', 'Server unreachable');
    }
  }

  function playersCell(players) {
    const td = el('td');
    const seats = Array.isArray(players) ? players : [];
    for (let i = 0; i < 2; i++) {
      if (i > 0) td.appendChild(document.createTextNode(' vs '));
      const p = seats[i];
      if (p && typeof p === 'object') {
        const name = el('span', p.name);
        if (p.kind && p.kind !== 'guest') name.title = p.kind;
        td.appendChild(name);
        if (p.kind === 'bot') td.appendChild(document.createTextNode(' (bot)'));
      } else {
        td.appendChild(el('span', 'free seat', 'free'));
      }
    }
    return td;
  }

  function roomRow(room) {
    const tr = el('tr');

    const nameCell = el('td');
    nameCell.appendChild(el('span', room.name || room.room));
    nameCell.appendChild(el('span', room.room, 'room-id'));
    tr.appendChild(nameCell);

    const game = (room.variant || 'square') + ', k = ' + room.k + ', limit ' + room.limit +
      (room.rated ? ', rated' : '');
    tr.appendChild(el('td', game));
    tr.appendChild(el('td', formatClock(room.clock), 'nowrap'));
    tr.appendChild(playersCell(room.players));
    tr.appendChild(el('td', Number(room.spectators) || 0, 'num'));

    const statusCell = el('td');
    const status = STATUS_TEXT[room.status] ? room.status : 'unknown';
    statusCell.appendChild(el('span', STATUS_TEXT[status] || String(room.status), 'tag tag-' + status));
    tr.appendChild(statusCell);
    return tr;
  }

  function showRoomsMessage(text) {
    const body = byId('rooms-body');
    const tr = el('tr');
    const td = el('td', text, 'empty');
    td.colSpan = 6;
    tr.appendChild(td);
    body.replaceChildren(tr);
  }

  async function refreshRooms() {
    try {
      const r = await getJSON('/api/rooms');
      if (!r.ok || !r.body || !Array.isArray(r.body.rooms)) {
        const why = r.body && r.body.error && r.body.error.message;
        showRoomsMessage('Cannot list the rooms (' + r.status + (why ? ': ' + why : '') + ').');
        return;
      }
      const rooms = r.body.rooms;
      if (rooms.length === 0) {
        showRoomsMessage('No public rooms right now.');
        return;
      }
      byId('rooms-body').replaceChildren(...rooms.map(roomRow));
    } catch (e) {
      showRoomsMessage('Cannot reach the server.');
    }
  }

  let timer = null;
  let busy = false;

  // One refresh at a time; the next is due REFRESH_MS after one ends. A hidden tab does
  // not poll: it refreshes as soon as it is shown again.
  async function refresh() {
    if (busy) return;
    busy = true;
    clearTimeout(timer);
    timer = null;
    try {
      await Promise.all([refreshStatus(), refreshRooms()]);
      byId('updated').textContent = 'Last update ' + new Date().toLocaleTimeString() + '.';
    } finally {
      busy = false;
    }
    timer = setTimeout(function () {
      timer = null;
      if (!document.hidden) refresh();
    }, REFRESH_MS);
  }

  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && timer === null) refresh();
  });

  refresh();
})();
