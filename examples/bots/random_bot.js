#!/usr/bin/env node
// A bot that plays a uniformly random legal action, for any game (same behaviour as random_bot.py).
//
// The bot wire (examples/README.md): one JSON object per line on stdin (game-start, event,
// action-request, accepted, refused, game-over); the bot answers each action-request with one
// line on stdout: {"type": "action", "table": T, "request": N, "action": {...}}.
//
// Usage: node random_bot.js [SEED]. Node.js only, no packages.
"use strict";
const readline = require("readline");

// mulberry32: a small seeded generator, so a given SEED gives the same choices every run.
function makeRng(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Seed text -> 32-bit number (FNV-1a).
function hash(text) {
  let h = 0x811c9dc5;
  for (const ch of String(text)) {
    h ^= ch.codePointAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// A legal entry made into an action: a range {min, max} (a raise) becomes amount = min.
function concrete(entry) {
  if ("min" in entry && "max" in entry) {
    const action = Object.assign({}, entry, { amount: entry.min });
    delete action.min;
    delete action.max;
    return action;
  }
  return entry;
}

const fixedSeed = process.argv[2];
let random = makeRng(fixedSeed === undefined ? Date.now() : hash(fixedSeed));

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === "game-start" && fixedSeed === undefined) {
    random = makeRng(hash(`${msg.commitment}:${msg.seat}`));
  } else if (msg.type === "action-request") {
    const legal = msg.legal;
    const entry = legal[Math.floor(random() * legal.length)];
    const answer = { type: "action", table: msg.table, request: msg.request, action: concrete(entry) };
    process.stdout.write(JSON.stringify(answer) + "\n");
  } else if (msg.type === "refused") {
    process.stderr.write(`refused: ${msg.code}: ${msg.reason}\n`);
  }
});
