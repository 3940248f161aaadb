// Short tones for moves, captures and low time, made with WebAudio (no sound files). Browsers
// start audio only after the person touched the page, so before that the page is silent.
import { settings } from "./settings.js";

/** @type {AudioContext|null} */
let ctx = null;

/** @param {number} freq @param {number} ms @param {number} at seconds from now */
function tone(freq, ms, at = 0, gain = 0.07) {
  if (!ctx) ctx = new AudioContext();
  const t0 = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const g = ctx.createGain();
  osc.type = "triangle";
  osc.frequency.value = freq;
  // A quick attack and decay: a click-like tone, not a beep that lingers.
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + ms / 1000);
  osc.connect(g).connect(ctx.destination);
  osc.start(t0);
  osc.stop(t0 + ms / 1000 + 0.02);
}

/** Plays the sound of `kind` when sound is on. @param {"move"|"capture"|"low"} kind */
export function playSound(kind) {
  if (!settings.sound) return;
  // What was played last, for the tests (the audio itself cannot be heard there).
  document.documentElement.dataset.lastSound = kind;
  try {
    if (kind === "move") tone(520, 70);
    else if (kind === "capture") { tone(420, 60); tone(300, 90, 0.07); }
    else { tone(880, 110); tone(880, 110, 0.16); }
  } catch (_) { /* no audio in this browser */ }
}
