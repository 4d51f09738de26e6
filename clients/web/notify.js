// notify.js: telling a player it is their move when they look elsewhere: the tab's title
// ("● Your turn · Thue game") and, if they switch it on, a short sound on their turn and
// at a match's end (Web Audio, made here: no sound file). The choice is kept in the
// browser's storage; it starts off.
import { t } from "./i18n.js";

const BASE_TITLE = t("app.title");
const SOUND_KEY = "thue.sound";

let audio = null;       // the AudioContext, made on the first user gesture that turns sound on
let lastTurnKey = null; // the turn last announced (room, match, round, word length or moves, step)
let lastEndKey = null;  // the match end last announced

export function soundWanted() {
  try { return localStorage.getItem(SOUND_KEY) === "on"; } catch { return false; }
}

/** Called from the sound checkbox's change (a user gesture: audio may start here). */
export function setSound(on) {
  try { localStorage.setItem(SOUND_KEY, on ? "on" : "off"); } catch { /* private mode */ }
  if (on && !audio && typeof AudioContext === "function") audio = new AudioContext();
  if (on) chime("turn");
}

/** Two short tones (a rising pair for a turn, a falling one for the end). */
function chime(kind) {
  document.body.dataset.chimes = String(Number(document.body.dataset.chimes || 0) + 1);
  document.body.dataset.lastChime = kind;
  if (!audio) return;
  const t0 = audio.currentTime;
  const notes = kind === "end" ? [660, 440] : [523, 784];
  notes.forEach((hz, i) => {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = hz;
    gain.gain.setValueAtTime(0.0001, t0 + i * 0.14);
    gain.gain.exponentialRampToValueAtTime(0.15, t0 + i * 0.14 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + i * 0.14 + 0.13);
    osc.connect(gain).connect(audio.destination);
    osc.start(t0 + i * 0.14);
    osc.stop(t0 + i * 0.14 + 0.14);
  });
}

/**
 * After each redraw of a room: the title says whether it is your move, and the sound
 * (when on) marks a new turn of yours and the end of a match you play. state is the
 * room_state on screen or null (no room); yours whether it is your move now.
 */
export function noticeTurn(state, yours) {
  document.title = yours ? `● ${t("app.notify.your_turn")} · ${BASE_TITLE}` : BASE_TITLE;
  if (!state || !state.match) return;
  const m = state.match;
  if (yours) {
    const key = `${state.room}/${m.number}/${m.round}/${m.word ? m.word.length : m.moves}/${m.step}`;
    if (key !== lastTurnKey && soundWanted()) chime("turn");
    lastTurnKey = key;
  }
  if (m.step === "over" && state.you !== null) {
    const key = `${state.room}/${m.number}`;
    if (key !== lastEndKey && soundWanted()) chime("end");
    lastEndKey = key;
  }
}
